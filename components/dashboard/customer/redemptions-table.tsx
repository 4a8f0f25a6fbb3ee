"use client";

import { useState } from "react";
import { useStaffWrite } from "@/lib/staff/client";
import { CancelRedemptionForm } from "@/lib/staff/forms/rewards";
import type { RedemptionRow } from "@/lib/staff/queries/redemptions";
import { staffApi } from "@/lib/staff/urls";
import {
  Badge,
  Field,
  FormError,
  ResponsiveCard,
  Table,
  dangerButtonClass,
  formatDate,
  formatNumber,
  inputClass,
  secondaryButtonClass,
} from "@/components/ui";
import { customerQueries } from "./profile";

const COLUMNS = [
  { label: "When" },
  { label: "Reward" },
  { label: "Code" },
  { label: "Points", align: "right" },
  { label: "Status" },
  { label: "Actions", hidden: true },
] as const;

function Status({ row }: { row: RedemptionRow }) {
  if (row.status === "cancelled")
    return (
      <span className="space-y-0.5">
        <Badge tone="slate">cancelled</Badge>
        {row.cancelReason && <span className="block text-xs text-slate-600">{row.cancelReason}</span>}
      </span>
    );
  return (
    <span className="space-y-0.5">
      <Badge tone="green">active</Badge>
      {row.cancellableUntil && (
        <span className="block text-xs text-slate-600">cancel until {formatDate(row.cancellableUntil)}</span>
      )}
    </span>
  );
}

/**
 * The Redemptions card's table (phones: one card per redemption) and its cancel step: "Cancel" on a row opens a
 * form under the table naming the redemption, where the reason is typed and the cancel confirmed (or dropped).
 */
export function RedemptionsTable({
  programId,
  customerId,
  rows,
  canCancel,
}: {
  programId: string;
  customerId: string;
  rows: RedemptionRow[];
  canCancel: boolean;
}) {
  const [chosen, setChosen] = useState<RedemptionRow | null>(null);
  const cancellable = (r: RedemptionRow) => canCancel && r.cancellableUntil !== false;
  const cancelButton = (r: RedemptionRow) =>
    cancellable(r) && (
      <button
        type="button"
        className={secondaryButtonClass}
        aria-label={`Cancel redemption ${r.code}`}
        aria-expanded={chosen?.id === r.id}
        onClick={() => setChosen(r)}
      >
        Cancel
      </button>
    );
  return (
    <>
      <Table
        label="Redemptions"
        look="plain"
        columns={COLUMNS}
        rows={rows}
        empty="No redemptions yet."
        card={(r) => (
          <ResponsiveCard
            key={r.id}
            title={
              <span className="flex flex-wrap items-center gap-2">
                <span className="font-medium">{r.reward}</span>
                <span className="font-mono">{r.code}</span>
              </span>
            }
            fields={[
              { label: "When", value: formatDate(r.createdAt) },
              { label: "Points", value: formatNumber(r.points) },
              { label: "Status", value: <Status row={r} /> },
              ...(cancellable(r) ? [{ label: "Actions", value: cancelButton(r) }] : []),
            ]}
          />
        )}
      >
        {(r) => (
          <tr key={r.id} className="align-top">
            <td className="min-w-28 py-2 pr-4 text-slate-600">{formatDate(r.createdAt)}</td>
            <td className="py-2 pr-4 font-medium">{r.reward}</td>
            <td className={`whitespace-nowrap py-2 pr-4 font-mono ${r.status === "cancelled" ? "line-through" : ""}`}>
              {r.code}
            </td>
            <td className="whitespace-nowrap py-2 pr-4 text-right tabular-nums">{formatNumber(r.points)}</td>
            <td className="py-2 pr-4">
              <Status row={r} />
            </td>
            <td className="whitespace-nowrap py-2 text-right">{cancelButton(r)}</td>
          </tr>
        )}
      </Table>
      {chosen && (
        <CancelForm
          key={chosen.id}
          programId={programId}
          customerId={customerId}
          row={chosen}
          onDone={() => setChosen(null)}
        />
      )}
    </>
  );
}

/** The confirm step: the reason, then "Cancel redemption" (points and stock back, code void) or "Keep it". */
function CancelForm({
  programId,
  customerId,
  row,
  onDone,
}: {
  programId: string;
  customerId: string;
  row: RedemptionRow;
  onDone: () => void;
}) {
  const [reason, setReason] = useState("");
  const cancel = useStaffWrite({
    schema: CancelRedemptionForm,
    method: "POST",
    url: staffApi.cancelRedemption(programId, row.id),
    success: `Redemption ${row.code} cancelled: ${formatNumber(row.points)} points back`,
    // This card reloads with the page; the history and the timeline are react-query caches.
    invalidate: customerQueries(customerId),
    onSuccess: onDone,
  });
  return (
    <form
      aria-label={`Cancel redemption ${row.code}`}
      className="mt-4 space-y-2 rounded-md border border-amber-200 bg-amber-50 p-3"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        cancel.submit({ reason });
      }}
    >
      <p className="text-sm text-amber-950">
        Cancel <span className="font-mono">{row.code}</span> ({row.reward}): {formatNumber(row.points)} points go back
        to the customer, the reward gets its unit of stock back, and the code stops being valid. This cannot be undone.
      </p>
      <Field label="Reason" htmlFor="cancel-reason" error={cancel.errors.reason}>
        <input
          id="cancel-reason"
          name="reason"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          maxLength={255}
          aria-invalid={!!cancel.errors.reason}
          className={inputClass}
          autoComplete="off"
        />
      </Field>
      <FormError error={cancel.errors.form} />
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={dangerButtonClass} disabled={cancel.pending}>
          {cancel.pending ? "Cancelling…" : "Cancel redemption"}
        </button>
        <button type="button" className={secondaryButtonClass} onClick={onDone}>
          Keep it
        </button>
      </div>
    </form>
  );
}
