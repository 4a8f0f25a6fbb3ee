"use client";

import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import type { Condition } from "@/lib/domain/campaigns/definition";
import { StaffApiError, staffFetch, useStaffWrite } from "@/lib/staff/client";
import { SegmentForm } from "@/lib/staff/forms/segments";
import type { SegmentBuilderOptions } from "@/lib/staff/queries/segments";
import { dashboardPages, staffApi } from "@/lib/staff/urls";
import { InputField, checkboxClass, formatNumber } from "@/components/ui";
import { conditionsOf, filterChoices, rowsOf, type GroupRow } from "../campaigns/builder-model";
import { ConditionRows } from "../campaigns/condition-rows";
import { BuilderSubmit } from "../campaigns/builder-submit";

/** How long the builder waits after the last change before it asks for the live count. */
const PREVIEW_DEBOUNCE_MS = 400;

interface Preview {
  count: number;
  sample: { customerId: string; email: string }[];
}
interface PreviewState {
  state: "idle" | "counting" | "done" | "problem";
  data?: Preview;
  problem?: string;
}

/**
 * The segment builder (managers): a name, the filter as rows of conditions over the customer's fields and event
 * history (each event leaf with an optional window), emitEvents, and the live count — the filter as it stands is
 * previewed (debounced; nothing stored) and its count and first members shown. Creates a segment (then opens its
 * page) or replaces one, from the version the page showed.
 */
export function SegmentBuilder({
  programId,
  options,
  initial,
}: {
  programId: string;
  options: SegmentBuilderOptions;
  /** Editing this segment; a new segment without it. */
  initial?: { id: string; name: string; filter: Condition; emitEvents: boolean; version: string };
}) {
  const router = useRouter();
  const idPrefix = initial ? "edit-segment" : "segment";
  const [name, setName] = useState(initial?.name ?? "");
  const [emitEvents, setEmitEvents] = useState(initial?.emitEvents ?? false);
  const [root, setRoot] = useState<GroupRow>(() => rowsOf(initial?.filter));
  const choices = useMemo(
    () => filterChoices(options.customerFields, options.customerAttributes, options.eventTypes),
    [options],
  );
  const filter = conditionsOf(root, choices);
  const write = useStaffWrite<typeof SegmentForm, { id: string }>({
    schema: SegmentForm,
    method: initial ? "PUT" : "POST",
    url: initial ? staffApi.segment(programId, initial.id) : staffApi.segments(programId),
    success: initial ? "Segment saved" : "Segment created",
    version: initial?.version,
    onSuccess: (data) => {
      if (!initial) router.push(dashboardPages.segment(programId, data.id));
    },
  });

  // The live count: the filter previewed once it has stopped changing; an older answer never replaces a newer one.
  const filterJson = JSON.stringify(filter);
  const [answer, setAnswer] = useState<{ for: string; data?: Preview; problem?: string } | null>(null);
  const asked = useRef(0);
  useEffect(() => {
    if (filterJson === "null") return;
    const ask = ++asked.current;
    const timer = setTimeout(() => {
      staffFetch<Preview>("POST", staffApi.segmentPreview(programId), { filter: JSON.parse(filterJson) })
        .then((data) => {
          if (ask === asked.current) setAnswer({ for: filterJson, data });
        })
        .catch((err: unknown) => {
          if (ask !== asked.current) return;
          const first = err instanceof StaffApiError ? Object.entries(err.fields)[0] : undefined;
          setAnswer({ for: filterJson, problem: first ? `${first[0]} ${first[1]}` : (err as Error).message });
        });
    }, PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [filterJson, programId]);
  const preview: PreviewState =
    filter === null
      ? { state: "idle" }
      : answer?.for !== filterJson
        ? { state: "counting", data: answer?.data }
        : answer.problem !== undefined
          ? { state: "problem", problem: answer.problem }
          : { state: "done", data: answer.data };

  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    write.submit({ name, filter: (filter ?? {}) as Record<string, unknown>, emitEvents });
  };
  const errors = write.errors;
  const problems = Object.entries(errors).filter(([k]) => k.startsWith("filter"));
  const title = initial ? "Edit the segment" : "New segment";
  return (
    <form onSubmit={onSubmit} aria-label={title} noValidate className="grid gap-5 lg:grid-cols-3">
      <div className="min-w-0 space-y-4 lg:col-span-2">
        <InputField
          label="Name"
          id={`${idPrefix}-name`}
          value={name}
          error={errors.name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Gold, no purchase in 90 days"
        />
        <ConditionRows
          root={root}
          onChange={setRoot}
          base="filter"
          emptyText="No conditions yet: a segment needs at least one."
          legend="Who is in it"
          hint="Customers who match the conditions. An event-history condition counts within its window (P90D: the last 90 days; empty: all time)."
          choices={choices}
          tierNames={options.tierNames}
          errors={errors}
          idPrefix={idPrefix}
        />
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            className={checkboxClass}
            checked={emitEvents}
            onChange={(e) => setEmitEvents(e.target.checked)}
          />
          Send <code>segment.entered</code> and <code>segment.left</code> webhooks
        </label>
        <BuilderSubmit
          errors={errors}
          problems={problems}
          pending={write.pending}
          submit={initial ? "Save the segment" : "Create segment"}
        />
      </div>
      <LiveCount preview={preview} />
    </form>
  );
}

function LiveCount({ preview }: { preview: PreviewState }) {
  return (
    <aside
      className="h-fit space-y-2 rounded-md border border-slate-200 bg-slate-50 p-3 text-sm"
      aria-label="Live count"
    >
      <h3 className="font-medium text-slate-800">Who it selects now</h3>
      {preview.state === "idle" ? (
        <p className="text-slate-600">Add a condition to see how many customers it selects.</p>
      ) : preview.state === "problem" ? (
        <p className="text-amber-800">Not counted yet: {preview.problem}</p>
      ) : (
        <>
          <p aria-live="polite" aria-busy={preview.state === "counting"}>
            <span className="text-2xl font-bold tabular-nums" data-testid="segment-count">
              {preview.data ? formatNumber(preview.data.count) : "…"}
            </span>{" "}
            {preview.data?.count === 1 ? "customer" : "customers"}
            {preview.state === "counting" && <span className="ml-2 text-xs text-slate-600">counting…</span>}
          </p>
          {preview.data && preview.data.sample.length > 0 && (
            <>
              <p className="text-xs text-slate-600">
                {preview.data.count > preview.data.sample.length
                  ? `The first ${preview.data.sample.length}:`
                  : "They are:"}
              </p>
              <ul className="max-h-64 space-y-0.5 overflow-y-auto break-all font-mono text-xs" aria-label="Sample">
                {preview.data.sample.map((m) => (
                  <li key={m.customerId}>{m.email}</li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </aside>
  );
}
