import clsx from "clsx";
import Link from "next/link";
import { FIRST_DAY, LAST_DAY, REPORT_RANGES, type ReportRange } from "@/lib/staff/report-range";
import { dashboardPages } from "@/lib/staff/urls";
import { FilterForm, inputClass } from "@/components/ui";

const PRESETS = REPORT_RANGES.filter((r) => r !== "custom");
const NAMES: Record<(typeof PRESETS)[number], string> = {
  "7d": "7 days",
  "30d": "30 days",
  "90d": "90 days",
  "365d": "365 days",
};

/**
 * The reports' period (the Overview, Finance): four presets as links (the range is the URL's state), a custom range
 * as a GET form, and, when the custom range asked for was refused (report-range.ts), why, politely.
 */
export function RangePicker({
  programId,
  range,
  page = dashboardPages.reports,
}: {
  programId: string;
  range: ReportRange;
  /** The page the presets link to (the Overview by default; the Finance page). */
  page?: (programId: string, range: { range: string }) => string;
}) {
  return (
    <>
      <div className="flex flex-wrap items-end gap-4">
        <nav aria-label="Report period">
          <ul className="flex flex-wrap gap-1 rounded-md border border-slate-300 bg-white p-1 text-sm shadow-sm">
            {PRESETS.map((r) => (
              <li key={r}>
                <Link
                  href={page(programId, { range: r })}
                  aria-current={range.range === r ? "page" : undefined}
                  className={clsx(
                    "block rounded px-3 py-1.5 font-medium",
                    range.range === r ? "bg-indigo-600 text-white" : "text-slate-700 hover:bg-slate-100",
                  )}
                >
                  {NAMES[r]}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <FilterForm label="Custom period" submit="Show">
          <input type="hidden" name="range" value="custom" />
          <div>
            <label htmlFor="from" className="block text-sm font-medium text-slate-800">
              From
            </label>
            <input
              id="from"
              name="from"
              type="date"
              min={FIRST_DAY}
              max={LAST_DAY}
              defaultValue={range.from}
              className={inputClass}
              required
            />
          </div>
          <div>
            <label htmlFor="to" className="block text-sm font-medium text-slate-800">
              To
            </label>
            <input
              id="to"
              name="to"
              type="date"
              min={FIRST_DAY}
              max={LAST_DAY}
              defaultValue={range.to}
              className={inputClass}
              required
            />
          </div>
        </FilterForm>
      </div>
      {range.error && (
        <p role="alert" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {range.error} Showing the last 30 days.
        </p>
      )}
    </>
  );
}
