"use client";

import { useState } from "react";
import { useStaffForm } from "@/lib/staff/client";
import { EarningFlowForm as EarningFlowSchema } from "@/lib/staff/forms";
import { staffApi } from "@/lib/staff/urls";
import { Card, Field, buttonClass, checkboxClass, inputClass } from "@/components/ui";
import { FlowParamsFieldset, readFlowParams, useParamRows } from "./flow-params-fieldset";

const codeInputClass = `${inputClass} font-mono`;

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
    read: (f) => {
      const fixed = mode === "fixed";
      return {
        key: f.text("key"),
        name: f.optionalText("name"),
        points: fixed ? f.optionalNumber("points") : null,
        pointsPerUnit: fixed ? null : f.optionalNumber("pointsPerUnit"),
        param: fixed ? null : f.optionalText("param"),
        params: readFlowParams(f, paramRows.rows),
        capPerDay: f.optionalNumber("capPerDay"),
        capTotal: f.optionalNumber("capTotal"),
        once: f.checked("once"),
      };
    },
  });
  const errors = create.errors;
  return (
    <Card title="New earning flow">
      <form {...create.form} aria-label="New earning flow" noValidate className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Field label="Key" htmlFor="flow-key" error={errors.key} hint="Used by the API, e.g. purchase">
          <input id="flow-key" name="key" required className={codeInputClass} placeholder="purchase" autoCapitalize="none" spellCheck={false} />
        </Field>
        <Field label="Name" htmlFor="flow-name" error={errors.name}>
          <input id="flow-name" name="name" className={inputClass} placeholder="Purchase in store" />
        </Field>
        <fieldset className="sm:col-span-2">
          <legend className="block text-sm font-medium text-slate-800">Points earned</legend>
          <div className="mt-2 flex flex-wrap gap-4 text-sm">
            <label className="flex items-center gap-2">
              <input type="radio" name="mode" value="fixed" checked={mode === "fixed"} onChange={() => setMode("fixed")} className={checkboxClass} />
              Fixed points per run
            </label>
            <label className="flex items-center gap-2">
              <input type="radio" name="mode" value="perUnit" checked={mode === "perUnit"} onChange={() => setMode("perUnit")} className={checkboxClass} />
              Points per unit of a param
            </label>
          </div>
        </fieldset>
        {mode === "fixed" ? (
          <Field label="Points" htmlFor="flow-points" error={errors.points}>
            <input id="flow-points" name="points" type="number" inputMode="numeric" min={1} step={1} className={inputClass} />
          </Field>
        ) : (
          <>
            <Field label="Points per unit" htmlFor="flow-per-unit" error={errors.pointsPerUnit ?? errors.points}>
              <input id="flow-per-unit" name="pointsPerUnit" type="number" inputMode="decimal" min={0} step="any" className={inputClass} placeholder="0.1" />
            </Field>
            <Field label="Param" htmlFor="flow-param" error={errors.param} hint="A numeric param of the run, e.g. amount">
              <input id="flow-param" name="param" className={codeInputClass} placeholder="amount" autoCapitalize="none" spellCheck={false} />
            </Field>
          </>
        )}
        <FlowParamsFieldset rows={paramRows} errors={errors} />
        <Field label="Cap per day" htmlFor="flow-cap-day" error={errors.capPerDay} hint="Points per customer per UTC day">
          <input id="flow-cap-day" name="capPerDay" type="number" inputMode="numeric" min={1} step={1} className={inputClass} />
        </Field>
        <Field label="Cap in total" htmlFor="flow-cap-total" error={errors.capTotal} hint="Points per customer, ever">
          <input id="flow-cap-total" name="capTotal" type="number" inputMode="numeric" min={1} step={1} className={inputClass} />
        </Field>
        <div className="flex items-center gap-2 self-center text-sm sm:col-span-2 lg:col-span-1">
          <input id="flow-once" name="once" type="checkbox" className={checkboxClass} />
          <label htmlFor="flow-once" className="font-medium text-slate-800">
            Once per customer
          </label>
        </div>
        <div className="sm:col-span-2 lg:col-span-4">
          <button className={buttonClass} type="submit" disabled={create.pending}>
            Create earning flow
          </button>
        </div>
      </form>
    </Card>
  );
}
