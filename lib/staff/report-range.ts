/**
 * The one place for the reports' date range (URL state `?range=7d|30d|90d|365d|custom&from=&to=`): which days of the
 * program's time zone a report covers, both ends included, and the previous period of the same length just before
 * it. A preset ends today (in that zone); a custom range is checked and falls back to 30 days with a message.
 * Pure and client-safe: days are YYYY-MM-DD strings, counted with UTC dates so no local clock takes part.
 */

export const REPORT_RANGES = ["7d", "30d", "90d", "365d", "custom"] as const;
export type ReportRangeName = (typeof REPORT_RANGES)[number];

/** The longest custom range, in days: two years, so a year can be compared with the year before. */
export const MAX_REPORT_DAYS = 731;

export interface ReportRange {
  range: ReportRangeName;
  from: string;
  to: string;
  days: number;
  previous: { from: string; to: string };
  /** Why the custom range asked for was not used, or null. */
  error: string | null;
}

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A YYYY-MM-DD day `n` days after `day` (n may be negative). */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both included. */
export const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;

/** The years a staff date may fall in (report ranges, export ranges, date inputs' `min`/`max`). */
export const FIRST_DAY = "1970-01-01";
export const LAST_DAY = "2100-12-31";

/** Whether `day` is a real calendar day in YYYY-MM-DD form, in the years 1970–2100 (month 13 or year 0001 is not). */
export const isDay = (day: string | undefined): day is string => {
  if (!day || !DAY.test(day) || day < FIRST_DAY || day > LAST_DAY) return false;
  const time = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === day;
};

/** Today's date in `timeZone` (IANA), at `now`. */
export function todayIn(timeZone: string, now = new Date()): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
}

function span(range: ReportRangeName, from: string, to: string, error: string | null = null): ReportRange {
  const days = daysBetween(from, to);
  return { range, from, to, days, previous: { from: addDays(from, -days), to: addDays(from, -1) }, error };
}

/** The range the query string asks for, in `timeZone`, at `now`. */
export function resolveRange(
  search: { range?: string; from?: string; to?: string },
  timeZone: string,
  now = new Date(),
): ReportRange {
  const today = todayIn(timeZone, now);
  const preset = (days: number, error: string | null = null) => {
    const name = REPORT_RANGES.find((r) => r === `${days}d`) ?? "30d";
    return span(name, addDays(today, 1 - days), today, error);
  };
  switch (search.range) {
    case "7d":
      return preset(7);
    case "90d":
      return preset(90);
    case "365d":
      return preset(365);
    case "custom": {
      const { from, to } = search;
      if (!isDay(from) || !isDay(to))
        return preset(30, "Give both dates of the custom range (YYYY-MM-DD, years 1970 to 2100).");
      if (from > to) return preset(30, "The custom range must not end before it starts.");
      if (daysBetween(from, to) > MAX_REPORT_DAYS)
        return preset(30, `A custom range may cover at most ${MAX_REPORT_DAYS} days.`);
      return span("custom", from, to);
    }
    default:
      return preset(30);
  }
}
