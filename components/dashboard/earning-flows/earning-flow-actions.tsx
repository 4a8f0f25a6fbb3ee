"use client";

import { useState } from "react";
import type { FlowParam } from "@/lib/domain/flow-params";
import { useStaffForm, useStaffWrite } from "@/lib/staff/client";
import { EarningFlowActive, EarningFlowEdit } from "@/lib/staff/forms/earning-flows";
import { staffApi } from "@/lib/staff/urls";
import { InputField, buttonClass, checkboxClass, secondaryButtonClass } from "@/components/ui";
import { EditDrawer } from "../edit-drawer";
import { PendingOverrideField, readPendingOverride } from "../pending-override-field";
import { FlowParamsFieldset, readFlowFields, useParamRows } from "./flow-params-fieldset";

export interface FlowData {
  id: string;
  key: string;
  name: string | null;
  points: number | null;
  pointsPerUnit: number | null;
  param: string | null;
  declared: FlowParam[];
  capPerDay: number | null;
  capTotal: number | null;
  once: boolean;
  /** Its override of the program's pending setting (neither: the program's). */
  pendingDays: number | null;
  pending: "until_confirmed" | null;
  active: boolean;
  /** Its version: a save made from an older one is refused (409 stale_edit) and offers to reload. */
  updatedAt: Date;
}

/** A flow row's actions (managers): redefine it in a drawer; switch it off (runs are refused) or on. */
export function EarningFlowActions({ programId, flow }: { programId: string; flow: FlowData }) {
  const toggle = useStaffWrite({
    schema: EarningFlowActive,
    method: "PUT",
    url: staffApi.earningFlowActive(programId, flow.id),
    version: flow.updatedAt,
    success: `"${flow.key}" ${flow.active ? "deactivated: its runs are refused" : "activated"}`,
  });
  return (
    <div className="flex justify-end gap-2 whitespace-nowrap">
      <EditDrawer title={`Edit earning flow "${flow.key}"`} button="Edit" buttonLabel={`Edit ${flow.key}`}>
        {(close) => <EarningFlowEditForm programId={programId} flow={flow} onSaved={close} />}
      </EditDrawer>
      <button
        type="button"
        className={`${secondaryButtonClass} min-w-28`}
        disabled={toggle.pending}
        onClick={() => toggle.submit({ active: !flow.active })}
      >
        {flow.active ? "Deactivate" : "Activate"}
        <span className="sr-only"> {flow.key}</span>
      </button>
    </div>
  );
}

function EarningFlowEditForm({ programId, flow, onSaved }: { programId: string; flow: FlowData; onSaved: () => void }) {
  const [mode, setMode] = useState<"fixed" | "perUnit">(flow.points !== null ? "fixed" : "perUnit");
  // The per-unit param is declared by the domain; the form shows the other declarations.
  const declared = flow.declared;
  const paramRows = useParamRows(declared.length);
  const save = useStaffForm({
    schema: EarningFlowEdit,
    method: "PATCH",
    url: staffApi.earningFlow(programId, flow.id),
    values: flow,
    version: flow.updatedAt,
    // The edit redefines the whole flow (its rules hold across fields): sent whole, with its version.
    changedOnly: false,
    success: `"${flow.key}" saved`,
    clear: "never",
    onSuccess: onSaved,
    read: (f) => ({ ...readFlowFields(f, mode, paramRows.rows), ...readPendingOverride(f) }),
  });
  const { errors, field } = save;
  const whole = { type: "number", inputMode: "numeric", min: 1, step: 1 } as const;
  return (
    <form {...save.form} aria-label={`Edit ${flow.key}`} noValidate className="space-y-4">
      <p className="text-sm text-slate-700">
        Key <span className="font-mono font-medium">{flow.key}</span> (integrators call the flow by it, so it stays).
      </p>
      <InputField label="Name" id="edit-flow-name" {...field("name")} />
      <fieldset>
        <legend className="block text-sm font-medium text-slate-800">Points earned</legend>
        <div className="mt-2 flex flex-wrap gap-4 text-sm">
          {(["fixed", "perUnit"] as const).map((m) => (
            <label key={m} className="flex items-center gap-2">
              <input
                type="radio"
                name="mode"
                value={m}
                checked={mode === m}
                onChange={() => setMode(m)}
                className={checkboxClass}
              />
              {m === "fixed" ? "Fixed points per run" : "Points per unit of a param"}
            </label>
          ))}
        </div>
      </fieldset>
      {mode === "fixed" ? (
        <InputField label="Points" id="edit-flow-points" {...field("points")} {...whole} />
      ) : (
        <>
          <InputField
            label="Points per unit"
            error={errors.pointsPerUnit ?? errors.points}
            id="edit-flow-per-unit"
            name="pointsPerUnit"
            type="number"
            inputMode="decimal"
            min={0}
            step="any"
            defaultValue={flow.pointsPerUnit ?? ""}
          />
          <InputField
            label="Param"
            id="edit-flow-param"
            {...field("param")}
            className="font-mono"
            autoCapitalize="none"
            spellCheck={false}
          />
        </>
      )}
      <FlowParamsFieldset rows={paramRows} errors={errors} initial={declared} />
      <InputField
        label="Cap per day"
        hint="Points per customer per UTC day; empty: none"
        id="edit-flow-cap-day"
        {...field("capPerDay")}
        {...whole}
      />
      <InputField
        label="Cap in total"
        hint="Points per customer, ever; empty: none"
        id="edit-flow-cap-total"
        {...field("capTotal")}
        {...whole}
      />
      <div className="flex items-center gap-2 text-sm">
        <input id="edit-flow-once" name="once" type="checkbox" defaultChecked={flow.once} className={checkboxClass} />
        <label htmlFor="edit-flow-once" className="font-medium text-slate-800">
          Once per customer
        </label>
      </div>
      <PendingOverrideField id="edit-flow" value={flow} error={errors.pendingDays ?? errors.pending} />
      <button type="submit" className={buttonClass} disabled={save.pending}>
        Save earning flow
      </button>
    </form>
  );
}
