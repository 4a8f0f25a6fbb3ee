"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { staffFetch, useStaffForm } from "@/lib/staff/client";
import { NoteForm, TIMELINE_KINDS, type TimelineKind } from "@/lib/staff/forms/customers";
import type { TimelineEntry, TimelinePage } from "@/lib/staff/queries/customers/timeline";
import { queryKeys, staffApi } from "@/lib/staff/urls";
import {
  Badge,
  Card,
  FormError,
  Field,
  ResponsiveCard,
  Table,
  buttonClass,
  formatDate,
  formatNumber,
  inputClass,
  inputLook,
  secondaryButtonClass,
  type Tone,
} from "@/components/ui";
import { customerQueries } from "./profile";
import type { AdjustLimit } from "./adjust-balance-form";
import { ReverseEntry, reversible } from "./reverse-entry";

const KIND_LABELS: Record<TimelineKind, string> = {
  points: "Points",
  staff: "Staff actions",
  redemption: "Redemptions",
  coupon: "Coupons",
  notification: "Notifications",
  note: "Notes",
};
const KIND_TONE: Record<TimelineKind, Tone> = {
  points: "green",
  staff: "slate",
  redemption: "amber",
  coupon: "indigo",
  notification: "slate",
  note: "indigo",
};

const COLUMNS = [
  { label: "When" },
  { label: "What" },
  { label: "Points", align: "right" },
  { label: "Details" },
  { label: "By" },
  { label: "Actions", hidden: true },
] as const;

/** Who did it: the staff member's name (and e-mail on hover), or where it came from (the API, a flow, the system). */
const who = (e: TimelineEntry) =>
  e.by ? (
    <span title={e.by.email}>{e.by.name ?? e.by.email}</span>
  ) : (
    <span className="text-slate-600">{e.source ?? "—"}</span>
  );

/** Staff actions in words; an action not listed shows as recorded. */
const ACTION_WORDS: Record<string, string> = {
  "customer.update": "edited user data",
  "customer.preferences": "changed preferences",
  "customer.delete": "erased the customer",
  "reward.redeem": "redeemed a reward",
  "coupon.assign": "assigned a coupon",
  "notification.send": "sent a notification",
  "balance.reverse": "reversed points",
  "redemption.cancel": "cancelled a redemption",
};
const titleOf = (e: TimelineEntry) => (e.kind === "staff" ? (ACTION_WORDS[e.title] ?? e.title) : e.title);

const signed = (points: number) => `${points > 0 ? "+" : ""}${formatNumber(points)}`;

/**
 * The customer page's timeline: points movements, staff actions, redemptions, coupons, notifications and internal
 * notes, newest first, with who did each; narrowed by kind, older pages on request. Staff who may edit the
 * customer add internal notes here (never shown to the customer).
 */
export function TimelineCard({
  programId,
  customerId,
  initial,
  canNote,
  reverseLimit = null,
}: {
  programId: string;
  customerId: string;
  initial: TimelinePage;
  canNote: boolean;
  /** Staff who may adjust balances reverse points rows, within their ceiling; null: no Reverse action. */
  reverseLimit?: AdjustLimit | null;
}) {
  const reverseAction = (e: TimelineEntry) =>
    reverseLimit && reversible(e) ? (
      <ReverseEntry programId={programId} customerId={customerId} entry={e} limit={reverseLimit} />
    ) : null;
  const [kind, setKind] = useState<TimelineKind | "">("");
  const query = useInfiniteQuery({
    queryKey: queryKeys.timeline(customerId, kind || null),
    queryFn: ({ pageParam }) =>
      staffFetch<TimelinePage>("GET", staffApi.timeline(programId, customerId, pageParam, kind || null)),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    ...(kind === "" ? { initialData: { pages: [initial], pageParams: [null] } } : {}),
  });
  const entries = query.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Card
      title="Timeline"
      actions={
        <label className="flex items-center gap-2 text-sm text-slate-700">
          Show
          <select
            aria-label="Show in the timeline"
            value={kind}
            onChange={(e) => setKind(e.target.value as TimelineKind | "")}
            className={`${inputLook} w-auto py-1`}
          >
            <option value="">Everything</option>
            {TIMELINE_KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </select>
        </label>
      }
    >
      {canNote && <NoteComposer programId={programId} customerId={customerId} />}
      {query.isPending ? (
        <p className="text-sm text-slate-600">Loading…</p>
      ) : (
        <Table
          label="Timeline"
          look="plain"
          columns={COLUMNS}
          rows={entries}
          empty={kind ? `Nothing of that kind yet.` : "Nothing has happened yet."}
          card={(e) => (
            <ResponsiveCard
              key={e.id}
              title={
                <span className="flex flex-wrap items-center gap-2">
                  <Badge tone={KIND_TONE[e.kind]}>{e.kind}</Badge>
                  <span className="font-medium">{titleOf(e)}</span>
                  {e.points !== null && <span className="tabular-nums">{signed(e.points)}</span>}
                </span>
              }
              fields={[
                { label: "When", value: formatDate(e.at) },
                { label: "By", value: who(e) },
                ...(e.detail ? [{ label: "Details", value: <span className="break-words">{e.detail}</span> }] : []),
                ...(reverseAction(e) ? [{ label: "Actions", value: reverseAction(e) }] : []),
              ]}
            />
          )}
        >
          {(e) => (
            <tr key={e.id} className="align-top">
              <td className="min-w-28 py-2 pr-4 text-slate-600">{formatDate(e.at)}</td>
              <td className="py-2 pr-4">
                <Badge tone={KIND_TONE[e.kind]}>{e.kind}</Badge> <span className="font-medium">{titleOf(e)}</span>
              </td>
              <td
                className={`whitespace-nowrap py-2 pr-4 text-right tabular-nums ${e.points === null ? "" : e.points > 0 ? "text-emerald-800" : "text-amber-900"}`}
              >
                {e.points === null ? "" : signed(e.points)}
              </td>
              <td className="min-w-36 max-w-md whitespace-pre-line break-words py-2 pr-4">{e.detail ?? ""}</td>
              <td className="whitespace-nowrap py-2 pr-4">{who(e)}</td>
              <td className="whitespace-nowrap py-2">{reverseAction(e)}</td>
            </tr>
          )}
        </Table>
      )}
      {query.isError && (
        <p className="mt-2 text-sm text-red-700" role="alert">
          Could not load the timeline: {query.error.message}
        </p>
      )}
      {query.hasNextPage && (
        <button
          className={`${secondaryButtonClass} mt-3`}
          onClick={() => query.fetchNextPage()}
          disabled={query.isFetchingNextPage}
        >
          {query.isFetchingNextPage ? "Loading…" : "Load older entries"}
        </button>
      )}
    </Card>
  );
}

function NoteComposer({ programId, customerId }: { programId: string; customerId: string }) {
  const note = useStaffForm({
    schema: NoteForm,
    method: "POST",
    url: staffApi.notes(programId, customerId),
    success: "Note added",
    invalidate: customerQueries(customerId),
    read: (f) => ({ body: f.text("body") }),
  });
  return (
    <form {...note.form} aria-label="Add an internal note" className="mb-4 space-y-2" noValidate>
      <Field
        label="Internal note (staff only, never sent to the customer)"
        htmlFor="note-body"
        error={note.errors.body}
      >
        <textarea
          id="note-body"
          name="body"
          rows={2}
          maxLength={4000}
          aria-invalid={!!note.errors.body}
          className={inputClass}
        />
      </Field>
      <FormError error={note.errors.form} />
      <button type="submit" className={buttonClass} disabled={note.pending}>
        {note.pending ? "Adding…" : "Add note"}
      </button>
    </form>
  );
}
