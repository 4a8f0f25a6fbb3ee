"use client";

import { useRef, useState } from "react";
import { toast } from "sonner";
import { csvFileName } from "@/lib/exports/csv-options";
import { saveTextFile } from "@/lib/exports/csv-browser";
import { EXPORT_LABELS, EXPORT_ROWS_HEADER, type ExportKind } from "@/lib/exports/kinds";
import { staffApi } from "@/lib/staff/urls";
import { formatNumber, secondaryButtonClass } from "@/components/ui";

/**
 * The one export button of the dashboard (customers list, audit log, coupon pools, reports): it streams the CSV
 * with fetch, shows rows received against the count the server sent up front (a progress bar that can be
 * cancelled), then saves the file. Line feeds are counted as rows, so a note with a line break in it makes the bar
 * run a little ahead; it never passes 100 %.
 */
export function ExportButton({
  programId,
  kind,
  filter = {},
  label,
}: {
  programId: string;
  kind: ExportKind;
  /** The export's query string (lib/exports/kinds.ts EXPORT_FILTERS). */
  filter?: Record<string, string | null | undefined>;
  /** The button's text; "Export CSV" by default. */
  label?: string;
}) {
  const [progress, setProgress] = useState<{ rows: number; total: number } | null>(null);
  const abort = useRef<AbortController | null>(null);
  const what = EXPORT_LABELS[kind];

  async function run() {
    const controller = new AbortController();
    abort.current = controller;
    setProgress({ rows: 0, total: 0 });
    try {
      const res = await fetch(staffApi.export(programId, kind, filter), { signal: controller.signal });
      if (!res.ok || !res.body) {
        const problem = (await res.json().catch(() => null)) as { detail?: string; title?: string } | null;
        toast.error(problem?.detail ?? problem?.title ?? `The export failed (${res.status}).`);
        return;
      }
      const total = Number(res.headers.get(EXPORT_ROWS_HEADER) ?? 0);
      const parts: BlobPart[] = [];
      const reader = res.body.getReader();
      let lines = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        for (const byte of value) if (byte === 10) lines++;
        // The first line is the header.
        setProgress({ rows: Math.min(Math.max(lines - 1, 0), total), total });
      }
      const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? csvFileName(kind);
      saveTextFile(name, new Blob(parts, { type: "text/csv;charset=utf-8" }));
      toast.success(`Exported ${formatNumber(total)} ${what}.`);
    } catch (err) {
      if (controller.signal.aborted) toast.info("Export cancelled.");
      else toast.error(`The export failed: ${(err as Error).message}`);
    } finally {
      abort.current = null;
      setProgress(null);
    }
  }

  if (progress) {
    const percent = progress.total ? Math.round((100 * progress.rows) / progress.total) : 0;
    return (
      <div className="flex flex-wrap items-center gap-2 text-sm" role="status">
        <progress
          className="h-2 w-32 accent-indigo-600"
          max={progress.total || 1}
          value={progress.rows}
          aria-label={`Exporting ${what}`}
        />
        <span className="tabular-nums text-slate-700">
          {formatNumber(progress.rows)} of {formatNumber(progress.total)} rows ({percent} %)
        </span>
        <button type="button" className={secondaryButtonClass} onClick={() => abort.current?.abort()}>
          Cancel
        </button>
      </div>
    );
  }
  return (
    <button type="button" className={secondaryButtonClass} onClick={run} aria-label={`Export ${what} as CSV`}>
      {label ?? "Export CSV"}
    </button>
  );
}
