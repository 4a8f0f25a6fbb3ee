"use client";

import { useMemo } from "react";
import { useStaffWrite } from "@/lib/staff/client";
import { formValues } from "@/lib/staff/form-data";
import { balanceAdjustmentWithin } from "@/lib/staff/forms";
import { staffApi } from "@/lib/staff/urls";
import { Field, buttonClass, inputClass } from "@/components/ui";
import { customerQueries } from "./profile";

export interface AdjustLimit {
  ceiling: number | null;
  rule: string | null;
}

/** Adds or takes points by hand, with a reason, within the staff member's ceiling. */
export function AdjustBalanceForm({ programId, customerId, limit }: { programId: string; customerId: string; limit: AdjustLimit }) {
  // The server refuses above the ceiling too (adjustment_above_ceiling); checking here says so before sending.
  const schema = useMemo(() => balanceAdjustmentWithin(limit.ceiling, limit.rule), [limit.ceiling, limit.rule]);
  const adjust = useStaffWrite({ schema, method: "POST", url: staffApi.balance(programId, customerId), success: "Balance adjusted", invalidate: customerQueries(customerId) });
  return (
    <form
      aria-label="Adjust balance"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const target = e.currentTarget;
        const f = formValues(target);
        // Empty stays NaN (reported by the schema), not 0.
        const points = (f.optionalNumber("points") ?? Number.NaN) * (f.text("direction") === "down" ? -1 : 1);
        if (adjust.submit({ points, reason: f.text("reason") })) target.reset();
      }}
    >
      <h3 className="text-sm font-semibold text-slate-900">Adjust balance</h3>
      <p className="text-xs text-slate-600">
        Recorded in the points history with your name and the reason.{limit.rule ? ` ${limit.rule}.` : ""}
      </p>
      <div className="mt-2 grid grid-cols-2 gap-2">
        <Field label="Direction" htmlFor="direction">
          <select id="direction" name="direction" className={inputClass}>
            <option value="up">Add</option>
            <option value="down">Take</option>
          </select>
        </Field>
        <Field label="Points" htmlFor="points" error={adjust.errors.points}>
          <input id="points" name="points" type="number" inputMode="numeric" min={1} step={1} className={inputClass} aria-invalid={!!adjust.errors.points} />
        </Field>
        <div className="col-span-2">
          <Field label="Reason" htmlFor="reason" error={adjust.errors.reason}>
            <input id="reason" name="reason" className={inputClass} placeholder="Goodwill for a late delivery" aria-invalid={!!adjust.errors.reason} />
          </Field>
        </div>
        <div>
          <button className={buttonClass} disabled={adjust.pending} type="submit">
            {adjust.pending ? "Applying…" : "Apply"}
          </button>
        </div>
      </div>
    </form>
  );
}
