"use client";

import { useMemo, useState } from "react";
import { useStaffForm } from "@/lib/staff/client";
import { reversalWithin } from "@/lib/staff/forms/reversals";
import type { TimelineEntry } from "@/lib/staff/queries/customers/timeline";
import { staffApi } from "@/lib/staff/urls";
import { FormError, InputField, buttonClass, formatNumber } from "@/components/ui";
import { EditDrawer } from "../edit-drawer";
import type { AdjustLimit } from "./adjust-balance-form";
import { customerQueries } from "./profile";

/** What the dashboard's reversal answers (lib/staff/operations/reversals.ts). */
interface ReversalOutcome {
  balance: number;
  requested: number;
  unrecovered: number;
  tierPoints: number;
  projectedTier: { name: string; periodPoints: number } | null;
}

/** Timeline rows a reversal applies to: earns, spends and manual adjustments (lib/domain/reversals.ts). */
export const reversible = (e: TimelineEntry) =>
  e.kind === "points" && ["earn", "spend", "adjust"].includes(e.title) && e.points !== null && e.points !== 0;

/**
 * The "Reverse" action of a timeline row: a drawer with the points (empty: all that is left) and a reason, within
 * the role's adjustment ceiling. After the reversal it shows what could not be taken back and the tier the customer
 * would keep at the next recalculation (the tier itself changes only then, API.md §4).
 */
export function ReverseEntry({
  programId,
  customerId,
  entry,
  limit,
}: {
  programId: string;
  customerId: string;
  entry: TimelineEntry;
  limit: AdjustLimit;
}) {
  const what = `${entry.title} of ${formatNumber(Math.abs(entry.points ?? 0))} points`;
  return (
    <EditDrawer title={`Reverse ${what}`} button="Reverse" buttonLabel={`Reverse ${what}`}>
      {() => (
        // The drawer sits in a table cell that does not wrap: its text must.
        <div className="whitespace-normal">
          <ReverseForm programId={programId} customerId={customerId} entry={entry} limit={limit} />
        </div>
      )}
    </EditDrawer>
  );
}

function ReverseForm({
  programId,
  customerId,
  entry,
  limit,
}: {
  programId: string;
  customerId: string;
  entry: TimelineEntry;
  limit: AdjustLimit;
}) {
  const [outcome, setOutcome] = useState<ReversalOutcome | null>(null);
  const schema = useMemo(() => reversalWithin(limit.ceiling, limit.rule), [limit.ceiling, limit.rule]);
  const reverse = useStaffForm<typeof schema, ReversalOutcome>({
    schema,
    method: "POST",
    url: staffApi.reverse(programId, customerId, entry.id),
    success: (r) => `Reversed: balance ${formatNumber(r.balance)}`,
    invalidate: customerQueries(customerId),
    onSuccess: setOutcome,
    codeFields: {
      reversal_exceeds_original: "points",
      adjustment_above_ceiling: "points",
      balance_limit: "points",
    },
    read: (f) => ({ points: f.optionalNumber("points") ?? null, reason: f.text("reason") }),
  });
  if (outcome) {
    return (
      <div role="status" aria-label="Reversal done" className="space-y-2 text-sm text-slate-800">
        <p>
          Reversed {formatNumber(outcome.requested - outcome.unrecovered)} of {formatNumber(outcome.requested)} points.
          The balance is now {formatNumber(outcome.balance)}.
        </p>
        {outcome.unrecovered > 0 && (
          <p className="font-medium text-amber-900">
            {formatNumber(outcome.unrecovered)} points could not be taken back: the customer had already spent them.
          </p>
        )}
        {outcome.tierPoints > 0 && <p>{formatNumber(outcome.tierPoints)} tier points removed from their period.</p>}
        {outcome.projectedTier && (
          <p>
            Projected tier at the next recalculation: <strong>{outcome.projectedTier.name}</strong> (
            {formatNumber(outcome.projectedTier.periodPoints)} points this period). The current tier stays until then.
          </p>
        )}
      </div>
    );
  }
  return (
    <form {...reverse.form} aria-label="Reverse points" className="space-y-3" noValidate>
      <p className="text-sm text-slate-600">
        A <code>reversal</code> entry linked to this one, recorded with your name and the reason. Points the customer
        already spent are reported, never taken below zero.{limit.rule ? ` ${limit.rule}.` : ""}
      </p>
      <InputField
        label="Points (empty: all that is left)"
        error={reverse.errors.points}
        id={`reverse-points-${entry.id}`}
        name="points"
        type="number"
        inputMode="numeric"
        min={1}
        step={1}
        aria-invalid={!!reverse.errors.points}
      />
      <InputField
        label="Reason"
        error={reverse.errors.reason}
        id={`reverse-reason-${entry.id}`}
        name="reason"
        placeholder="Order returned"
        aria-invalid={!!reverse.errors.reason}
      />
      <FormError error={reverse.errors.form} />
      <button className={buttonClass} disabled={reverse.pending} type="submit">
        {reverse.pending ? "Reversing…" : "Reverse"}
      </button>
    </form>
  );
}
