"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { toast } from "sonner";
import { StaffApiError, staffFetch } from "@/lib/staff/client";
import { MAX_CODES_PER_CHUNK, parseCouponCsv } from "@/lib/staff/forms/coupons";
import { staffApi } from "@/lib/staff/urls";
import { Card, Field, buttonClass, formatNumber, inputClass } from "@/components/ui";

/**
 * Imports a CSV of codes (one per line, an optional `code` header) into a pool: parsed in the browser, checked
 * with the server's rules, then sent in chunks of MAX_CODES_PER_CHUNK, each all-or-nothing, with a progress bar.
 * Codes already in the pool are skipped, so a file can be sent again after an interruption.
 */
export function CouponImport({ programId, pools }: { programId: string; pools: { id: string; name: string }[] }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<{
    done: number;
    total: number;
    imported: number;
    skipped: number;
    finished: boolean;
  } | null>(null);
  const running = progress !== null && !progress.finished;

  async function run(form: HTMLFormElement) {
    setError(null);
    const f = new FormData(form);
    const poolId = String(f.get("poolId") ?? "");
    const file = f.get("file");
    if (!(file instanceof File) || file.size === 0) return setError("choose a CSV file with one code per line");
    const parsed = parseCouponCsv(await file.text());
    if ("line" in parsed) return setError(`Line ${parsed.line}: ${parsed.message}. Nothing was imported.`);
    const { codes } = parsed;
    if (codes.length === 0) return setError("the file holds no codes");
    const state = { done: 0, total: codes.length, imported: 0, skipped: 0, finished: false };
    setProgress({ ...state });
    try {
      for (let i = 0; i < codes.length; i += MAX_CODES_PER_CHUNK) {
        const chunk = codes.slice(i, i + MAX_CODES_PER_CHUNK);
        const result = await staffFetch<{ imported: number; skipped: number }>(
          "POST",
          staffApi.couponCodes(programId, poolId),
          { codes: chunk },
        );
        state.done += chunk.length;
        state.imported += result.imported;
        state.skipped += result.skipped;
        setProgress({ ...state });
      }
      toast.success(
        `Imported ${formatNumber(state.imported)} codes; skipped ${formatNumber(state.skipped)} duplicates`,
      );
      form.reset();
    } catch (err) {
      const detail =
        err instanceof StaffApiError ? (Object.values(err.fields)[0] ?? err.message) : (err as Error).message;
      const message = `Stopped after ${formatNumber(state.done)} of ${formatNumber(state.total)} codes: ${detail}. Sending the file again skips the codes already imported.`;
      setError(message);
      toast.error(message);
    } finally {
      setProgress({ ...state, finished: true });
      router.refresh();
    }
  }

  return (
    <Card title="Import codes from a CSV file">
      <form
        aria-label="Import coupon codes"
        noValidate
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void run(e.currentTarget);
        }}
      >
        <div className="min-w-48 flex-1">
          <Field label="Pool" htmlFor="import-pool">
            <select id="import-pool" name="poolId" className={inputClass} disabled={running}>
              {pools.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <div className="min-w-56 flex-[2]">
          <Field label="CSV file (one code per line)" htmlFor="import-file">
            <input
              id="import-file"
              name="file"
              type="file"
              accept=".csv,.txt,text/csv,text/plain"
              required
              disabled={running}
              className="block w-full text-sm text-slate-800 file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-2 file:text-sm file:font-medium file:text-slate-800 hover:file:bg-slate-50"
            />
          </Field>
        </div>
        <button type="submit" className={buttonClass} disabled={running}>
          {running ? "Importing…" : "Import"}
        </button>
      </form>
      {error && (
        <p className="mt-3 text-sm font-medium text-red-700" role="alert">
          {error}
        </p>
      )}
      {progress && (
        <div className="mt-4 space-y-1" role="status">
          <progress
            className="h-3 w-full overflow-hidden rounded-full bg-slate-200 [&::-moz-progress-bar]:bg-indigo-600 [&::-webkit-progress-bar]:bg-slate-200 [&::-webkit-progress-value]:bg-indigo-600 [&::-webkit-progress-value]:transition-all"
            value={progress.done}
            max={progress.total}
            aria-label="Codes imported"
          >
            {progress.done} of {progress.total}
          </progress>
          <p className="text-sm tabular-nums text-slate-700" data-testid="import-progress">
            {formatNumber(progress.done)} / {formatNumber(progress.total)} codes sent
            {progress.done > 0 &&
              ` · ${formatNumber(progress.imported)} imported, ${formatNumber(progress.skipped)} duplicates skipped`}
            {progress.finished && progress.done === progress.total && " · done"}
          </p>
        </div>
      )}
    </Card>
  );
}
