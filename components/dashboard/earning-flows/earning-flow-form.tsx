"use client";

import { useState } from "react";
import { useStaffForm } from "@/lib/staff/client";
import { EarningFlowForm as EarningFlowSchema } from "@/lib/staff/forms/earning-flows";
import { staffApi } from "@/lib/staff/urls";
import { InputField, checkboxClass } from "@/components/ui";
import { CardForm } from "../card-form";
import { PendingOverrideField, readPendingOverride } from "../pending-override-field";
import { FlowParamsFieldset, readFlowFields, useParamRows } from "./flow-params-fieldset";

/** The earning flows page's "New earning flow" card (managers): fixed or per-unit points, declared params, caps. */
export function EarningFlowForm({ programId }: { programId: string }) {
  const [mode, setMode] = useState<"fixed" | "perUnit">("fixed");
  const paramRows = useParamRows();
  const create = useStaffForm({
    schema: EarningFlowSchema,
    method: "POST",
    url: staffApi.earningFlows(programId),
    success: "Earning flow created",
    onSuccess: () => {
      setMode("fixed");
      paramRows.clear();
    },
    read: (f) => ({ key: f.text("key"), ...readFlowFields(f, mode, paramRows.rows), ...readPendingOverride(f) }),
  });
  const { errors, field } = create;
  return (
    <CardForm
      title="New earning flow"
      form={create.form}
      pending={create.pending}
      submit="Create earning flow"
      submitIn="sm:col-span-2 lg:col-span-4"
      noValidate
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
    >
      <InputField
        label="Key"
        hint="Used by the API, e.g. purchase"
        id="flow-key"
        {...field("key")}
        required
        className="font-mono"
        placeholder="purchase"
        autoCapitalize="none"
        spellCheck={false}
      />
      <InputField label="Name" id="flow-name" {...field("name")} placeholder="Purchase in store" />
      <fieldset className="sm:col-span-2">
        <legend className="block text-sm font-medium text-slate-800">Points earned</legend>
        <div className="mt-2 flex flex-wrap gap-4 text-sm">
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name="mode"
              value="fixed"
              checked={mode === "fixed"}
              onChange={() => setMode("fixed")}
              className={checkboxClass}
            />
            Fixed points per run
          </label>
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name="mode"
              value="perUnit"
              checked={mode === "perUnit"}
              onChange={() => setMode("perUnit")}
              className={checkboxClass}
            />
            Points per unit of a param
          </label>
        </div>
      </fieldset>
      {mode === "fixed" ? (
        <InputField
          label="Points"
          id="flow-points"
          {...field("points")}
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
        />
      ) : (
        <>
          <InputField
            label="Points per unit"
            error={errors.pointsPerUnit ?? errors.points}
            id="flow-per-unit"
            name="pointsPerUnit"
            type="number"
            inputMode="decimal"
            min={0}
            step="any"
            placeholder="0.1"
          />
          <InputField
            label="Param"
            hint="A numeric param of the run, e.g. amount"
            id="flow-param"
            {...field("param")}
            className="font-mono"
            placeholder="amount"
            autoCapitalize="none"
            spellCheck={false}
          />
        </>
      )}
      <FlowParamsFieldset rows={paramRows} errors={errors} />
      <InputField
        label="Cap per day"
        hint="Points per customer per UTC day"
        id="flow-cap-day"
        {...field("capPerDay")}
        type="number"
        inputMode="numeric"
        min={1}
        step={1}
      />
      <InputField
        label="Cap in total"
        hint="Points per customer, ever"
        id="flow-cap-total"
        {...field("capTotal")}
        type="number"
        inputMode="numeric"
        min={1}
        step={1}
      />
      <div className="flex items-center gap-2 self-center text-sm sm:col-span-2 lg:col-span-1">
        <input id="flow-once" name="once" type="checkbox" className={checkboxClass} />
        <label htmlFor="flow-once" className="font-medium text-slate-800">
          Once per customer
        </label>
      </div>
      <div className="sm:col-span-2">
        <PendingOverrideField id="flow" error={errors.pendingDays ?? errors.pending} />
      </div>
    </CardForm>
  );
}
