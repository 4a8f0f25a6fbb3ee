"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useId, useState } from "react";
import { ClockAdvanceForm } from "@/lib/staff/forms/clock";
import { StaffApiError, staffFetch, useStaffWrite } from "@/lib/staff/client";
import type { AdvanceApplied } from "@/lib/staff/operations/clock";
import type { ClockPreview } from "@/lib/staff/queries/clock";
import { dashboardPages, staffApi } from "@/lib/staff/urls";
import {
  FieldError,
  FormError,
  buttonClass,
  formatDate,
  formatNumber,
  inputLook,
  secondaryButtonClass,
} from "@/components/ui";
import { AppliedCounts } from "./applied-counts";
import { TimelineTable } from "./timeline-table";

/**
 * "Advance to…" on a test program's clock bar (managers and owners): a date-time (UTC) between the clock and two
 * years after it; first a dry run, whose preview shows what would happen (nothing is stored), then Apply, which runs
 * the advance for real. While either runs, the controls are disabled and the seconds elapsed show; the advance
 * carries this preview's request id, so a second submit replays the first instead of advancing again. Once applied,
 * the page's data is refreshed (useStaffWrite) and the bar links to the advance's timeline.
 */

/** `2027-01-01T00:00` (a datetime-local value, read as UTC) ↔ an ISO instant. */
const toIso = (local: string) => `${local}:00.000Z`;
const toLocal = (date: Date) => date.toISOString().slice(0, 16);
/** The first whole minute at or after `iso` (an input's min), and the last at or before it (its max). */
const ceilMinute = (iso: string) => toLocal(new Date(Math.ceil(new Date(iso).getTime() / 60_000) * 60_000));
const floorMinute = (iso: string) => toLocal(new Date(Math.floor(new Date(iso).getTime() / 60_000) * 60_000));

/** Seconds since `running` became true, ticking while it stays true. */
function useElapsed(running: boolean) {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    if (!running) return;
    const started = Date.now();
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 500);
    return () => {
      clearInterval(timer);
      setSeconds(0);
    };
  }, [running]);
  return seconds;
}

export function ClockAdvance({ programId, now, max }: { programId: string; now: string; max: string }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [to, setTo] = useState("");
  const [inputError, setInputError] = useState<string>();
  const [preview, setPreview] = useState<{ to: string; report: ClockPreview; requestId: string } | null>(null);
  const [last, setLast] = useState<AdvanceApplied | null>(null);
  const min = ceilMinute(now);
  const latest = floorMinute(max);

  const dryRun = useMutation({
    mutationFn: (iso: string) => staffFetch<ClockPreview>("GET", staffApi.clockPreview(programId, iso)),
    onSuccess: (report, iso) => setPreview({ to: iso, report, requestId: crypto.randomUUID() }),
    onError: (err) => setInputError(err instanceof StaffApiError ? (err.fields.to ?? undefined) : undefined),
  });
  const apply = useStaffWrite<typeof ClockAdvanceForm, AdvanceApplied>({
    schema: ClockAdvanceForm,
    method: "POST",
    url: staffApi.clockAdvance(programId),
    success: (d) =>
      `Clock advanced to ${formatDate(d.to)}: ${formatNumber(d.applied.expiredPoints)} points expired, ` +
      `${formatNumber(d.applied.tierChanges)} tier changes`,
    onSuccess: (d) => {
      setLast(d);
      setPreview(null);
      setOpen(false);
      setTo("");
    },
  });
  const busy = dryRun.isPending || apply.pending;
  const elapsed = useElapsed(busy);

  const runDryRun = (event: React.FormEvent) => {
    event.preventDefault();
    setInputError(undefined);
    if (!to) return setInputError("Choose the date and time to advance to.");
    if (to < min) return setInputError(`must not be before the clock (${formatDate(now)})`);
    if (to > latest) return setInputError(`must be at most two years after the clock (${formatDate(max)})`);
    setPreview(null);
    dryRun.mutate(toIso(to));
  };

  if (!open)
    return (
      <div className="flex flex-wrap items-center gap-2">
        {last && (
          <p className="text-sm" role="status">
            Advanced {last.replayed ? "(already applied) " : ""}to {formatDate(last.to)}.{" "}
            <Link
              className="font-medium text-indigo-800 underline"
              href={dashboardPages.clock(programId, last.advanceId)}
            >
              See its timeline
            </Link>
          </p>
        )}
        <button type="button" className={secondaryButtonClass} onClick={() => setOpen(true)}>
          Advance to…
        </button>
      </div>
    );

  const formError =
    dryRun.error && !(dryRun.error instanceof StaffApiError && dryRun.error.fields.to)
      ? dryRun.error.message
      : undefined;
  return (
    <div className="mt-2 w-full space-y-3 rounded-md border border-amber-300 bg-white p-3 text-slate-900 shadow-sm">
      <form className="flex flex-wrap items-end gap-2" aria-label="Advance the clock" noValidate onSubmit={runDryRun}>
        <div className="space-y-1">
          <label htmlFor={`${id}-to`} className="block text-sm font-medium text-slate-800">
            Advance to (UTC)
          </label>
          <input
            id={`${id}-to`}
            type="datetime-local"
            className={`${inputLook} w-auto py-2`}
            min={min}
            max={latest}
            step={60}
            value={to}
            disabled={busy}
            aria-invalid={inputError ? true : undefined}
            onChange={(e) => {
              setTo(e.target.value);
              setPreview(null);
              setInputError(undefined);
            }}
          />
        </div>
        <button type="submit" className={buttonClass} disabled={busy}>
          Preview (dry run)
        </button>
        <button
          type="button"
          className={secondaryButtonClass}
          disabled={apply.pending}
          onClick={() => {
            setOpen(false);
            setPreview(null);
          }}
        >
          Cancel
        </button>
        <FieldError error={inputError} className="w-full" />
      </form>
      <p className="text-xs text-slate-600">
        Between the clock ({formatDate(now)}) and two years after it ({formatDate(max)}). Every timer due on the way
        runs at its own instant: points expiry, then tier period closing, then lifecycle campaigns.
      </p>
      <FormError error={formError ?? apply.errors.form ?? apply.errors.to} />
      {busy && (
        <p role="status" className="flex items-center gap-2 text-sm font-medium text-amber-900">
          <span
            className="h-3 w-3 animate-spin rounded-full border-2 border-amber-600 border-t-transparent"
            aria-hidden
          />
          {apply.pending ? "Advancing the clock" : "Running the dry run"}… {elapsed} s
        </p>
      )}
      {preview && !dryRun.isPending && (
        <section aria-label="Dry run preview" className="space-y-2">
          <h3 className="text-sm font-semibold">
            Dry run: from {formatDate(preview.report.from)} to {formatDate(preview.report.to)}. Nothing has changed yet.
          </h3>
          <AppliedCounts applied={preview.report.applied} label="What the advance would do" />
          <p className="text-xs text-slate-600">
            {formatNumber(preview.report.steps)} due {preview.report.steps === 1 ? "instant" : "instants"},{" "}
            {formatNumber(preview.report.timelineTotal)} timeline{" "}
            {preview.report.timelineTotal === 1 ? "entry" : "entries"}
            {preview.report.timelineTotal > preview.report.timeline.length
              ? `; the first ${preview.report.timeline.length}:`
              : preview.report.timelineTotal > 0
                ? ":"
                : "."}
          </p>
          {preview.report.timeline.length > 0 && (
            <TimelineTable programId={programId} rows={preview.report.timeline} label="Dry run timeline" />
          )}
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              className={buttonClass}
              disabled={busy}
              onClick={() => apply.submit({ to: preview.to, requestId: preview.requestId })}
            >
              Apply: advance to {formatDate(preview.to)}
            </button>
          </div>
        </section>
      )}
    </div>
  );
}
