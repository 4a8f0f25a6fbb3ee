/**
 * The one place campaign time is read in the program's time zone: whether an instant falls in a campaign's schedule
 * (start inclusive, end exclusive; ISO days of week 1 = Monday … 7 = Sunday; local hours from–to, `to` exclusive,
 * wrapping past midnight when from > to), and the window a per-customer limit counts in. Pure.
 */
import type { CampaignSchedule, LimitWindow } from "./definition";

/** An instant's wall-clock parts in a time zone. */
export interface ZonedTime {
  year: number;
  month: number;
  day: number;
  /** ISO day of week, 1 = Monday … 7 = Sunday. */
  weekday: number;
  /** Minutes since local midnight. */
  minutes: number;
}

const FORMATTERS = new Map<string, Intl.DateTimeFormat>();
/** Per zone, the UTC offset (ms) of each quarter hour asked: every zone's offsets and transitions are on quarter hours. */
const OFFSETS = new Map<string, Map<number, number>>();
const QUARTER_MS = 900_000;
const MAX_CACHED_QUARTERS = 20_000;

function formatter(timeZone: string) {
  let f = FORMATTERS.get(timeZone);
  if (!f)
    FORMATTERS.set(
      timeZone,
      (f = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
      })),
    );
  return f;
}

/** The zone's offset from UTC at `t`, read once per quarter hour from Intl and cached. */
function offsetAt(t: number, timeZone: string): number {
  let zone = OFFSETS.get(timeZone);
  if (!zone) OFFSETS.set(timeZone, (zone = new Map()));
  const quarter = Math.floor(t / QUARTER_MS);
  let offset = zone.get(quarter);
  if (offset === undefined) {
    const at = quarter * QUARTER_MS;
    const parts: Record<string, string> = {};
    for (const p of formatter(timeZone).formatToParts(at)) parts[p.type] = p.value;
    const wall = Date.UTC(
      Number(parts.year),
      Number(parts.month) - 1,
      Number(parts.day),
      Number(parts.hour),
      Number(parts.minute),
    );
    offset = wall - at;
    if (zone.size >= MAX_CACHED_QUARTERS) zone.clear();
    zone.set(quarter, offset);
  }
  return offset;
}

export function zonedTime(at: Date, timeZone: string): ZonedTime {
  const t = at.getTime();
  const wall = t + offsetAt(t, timeZone);
  const days = Math.floor(wall / 86_400_000);
  const minutes = Math.floor((wall - days * 86_400_000) / 60_000);
  // The civil date of a day number (Howard Hinnant's days_from_civil, inverted): no Date allocated.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  // 1970-01-01 was a Thursday (ISO 4).
  const weekday = ((((days + 3) % 7) + 7) % 7) + 1;
  return { year, month, day, weekday, minutes };
}

const hhmm = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));

/** Whether `at` (with its local parts) is inside the schedule. */
export function inSchedule(schedule: CampaignSchedule, at: Date, local: ZonedTime): boolean {
  const t = at.getTime();
  if (schedule.startsAt !== undefined && t < Date.parse(schedule.startsAt)) return false;
  if (schedule.endsAt !== undefined && t >= Date.parse(schedule.endsAt)) return false;
  if (schedule.daysOfWeek !== undefined && !schedule.daysOfWeek.includes(local.weekday)) return false;
  if (schedule.hours !== undefined) {
    const from = hhmm(schedule.hours.from);
    const to = hhmm(schedule.hours.to);
    const m = local.minutes;
    const inside = from <= to ? m >= from && m < to : m >= from || m < to;
    if (!inside) return false;
  }
  return true;
}

/** The ISO week (year and number) of a local calendar date. */
function isoWeek(year: number, month: number, day: number): [number, number] {
  const d = Date.UTC(year, month - 1, day);
  const weekday = new Date(d).getUTCDay() || 7;
  const thursday = d + (4 - weekday) * 86_400_000;
  const wYear = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(wYear, 0, 1)) / (7 * 86_400_000)) + 1;
  return [wYear, week];
}

const pad = (n: number) => String(n).padStart(2, "0");

/** The key of the limit window `local` falls in: "2026-11-25", "2026-W48", "2026-11", "2026", "lifetime". */
export function windowKey(window: LimitWindow, local: ZonedTime): string {
  switch (window) {
    case "day":
      return `${local.year}-${pad(local.month)}-${pad(local.day)}`;
    case "week": {
      const [y, w] = isoWeek(local.year, local.month, local.day);
      return `${y}-W${pad(w)}`;
    }
    case "month":
      return `${local.year}-${pad(local.month)}`;
    case "year":
      return String(local.year);
    case "lifetime":
      return "lifetime";
  }
}

/** The instant of local midnight starting the civil day `year-month-day` in the time zone. */
export function localMidnight(year: number, month: number, day: number, timeZone: string): Date {
  const wall = Date.UTC(year, month - 1, day);
  // The offset at the guessed instant, then again at the corrected one (right across a transition).
  const guess = wall - offsetAt(wall, timeZone);
  return new Date(wall - offsetAt(guess, timeZone));
}
