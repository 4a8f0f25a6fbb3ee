"use client";

import { useMemo } from "react";
import { useStaffForm } from "@/lib/staff/client";
import { balanceAdjustmentWithin } from "@/lib/staff/forms/points";
import { staffApi } from "@/lib/staff/urls";
import { Field, FormError, InputField, buttonClass, inputClass } from "@/components/ui";
import { customerQueries } from "./profile";

export interface AdjustLimit {
  ceiling: number | null;
  rule: string | null;
}

/** Adds or takes points by hand, with a reason, within the staff member's ceiling. */
export function AdjustBalanceForm({
  programId,
  customerId,
  limit,
}: {
  programId: string;
  customerId: string;
  limit: AdjustLimit;
}) {
  // The server refuses above the ceiling too (adjustment_above_ceiling); checking here says so before sending.
  const schema = useMemo(() => balanceAdjustmentWithin(limit.ceiling, limit.rule), [limit.ceiling, limit.rule]);
  const adjust = useStaffForm({
    schema,
    method: "POST",
    url: staffApi.balance(programId, customerId),
    success: "Balance adjusted",
    invalidate: customerQueries(customerId),
    // Refusals about the amount show at the amount; the direction, points and reason stay as typed.
    codeFields: { insufficient_balance: "points", balance_limit: "points", adjustment_above_ceiling: "points" },
    // Empty stays NaN (reported by the schema), not 0.
    read: (f) => ({
      points: (f.optionalNumber("points") ?? Number.NaN) * (f.text("direction") === "down" ? -1 : 1),
      reason: f.text("reason"),
    }),
  });
  return (
    <form {...adjust.form} aria-label="Adjust balance" noValidate>
      <h3 className="text-sm font-semibold text-slate-900">Adjust balance</h3>
      <p className="text-xs text-slate-600">
        Recorded in the timeline with your name and the reason.{limit.rule ? ` ${limit.rule}.` : ""}
      </p>
      <div className="mt-2 grid grid-cols-2 gap-2">
        <Field label="Direction" htmlFor="direction">
          <select id="direction" name="direction" className={inputClass}>
            <option value="up">Add</option>
            <option value="down">Take</option>
          </select>
        </Field>
        <InputField
          label="Points"
          error={adjust.errors.points}
          id="points"
          name="points"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          aria-invalid={!!adjust.errors.points}
        />
        <div className="col-span-2">
          <InputField
            label="Reason"
            error={adjust.errors.reason}
            id="reason"
            name="reason"
            placeholder="Goodwill for a late delivery"
            aria-invalid={!!adjust.errors.reason}
          />
        </div>
        {adjust.errors.form && (
          <div className="col-span-2">
            <FormError error={adjust.errors.form} />
          </div>
        )}
        <div>
          <button className={buttonClass} disabled={adjust.pending} type="submit">
            {adjust.pending ? "Applying…" : "Apply"}
          </button>
        </div>
      </div>
    </form>
  );
}
