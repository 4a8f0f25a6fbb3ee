/**
 * The calendar of lifecycle campaigns (API.md "Lifecycle campaigns"), pure: which local days of the program's time
 * zone begin in a window, and whose birthday or anniversary each one is. A birthday or anniversary falls on local
 * midnight of its day; one on 29 February falls on 28 February in a year that has no 29 February (so it is kept once
 * a year, never skipped, and never moved into March).
 */
import { localMidnight, zonedTime } from "./schedule";

export interface LocalDay {
  year: number;
  month: number;
  day: number;
  /** Local midnight: the instant the day begins. */
  at: Date;
}

export const isLeapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (y: number, m: number) => (m === 2 && isLeapYear(y) ? 29 : DAYS_IN_MONTH[m - 1]!);

function nextDay(y: number, m: number, d: number): [number, number, number] {
  if (d < daysIn(y, m)) return [y, m, d + 1];
  return m < 12 ? [y, m + 1, 1] : [y + 1, 1, 1];
}

const pad = (n: number) => String(n).padStart(2, "0");
/** "MM-DD" (the form of UserData.birthday). */
export const monthDay = (m: number, d: number) => `${pad(m)}-${pad(d)}`;

/**
 * The local days whose midnight is in [since, until] (both included), oldest first; at most `limit` of them: the
 * latest (`keep: "latest"`, a sweep catching up) or the earliest (`keep: "earliest"`, looking for the next one).
 */
export function localDaysIn(
  since: Date,
  until: Date,
  timeZone: string,
  limit: number,
  keep: "latest" | "earliest",
): LocalDay[] {
  if (since > until) return [];
  const days: LocalDay[] = [];
  const first = zonedTime(since, timeZone);
  let [y, m, d] = [first.year, first.month, first.day];
  // Midnight of since's own day is before since unless since is that midnight.
  for (let guard = 0; guard < 100_000; guard++) {
    const at = localMidnight(y, m, d, timeZone);
    if (at > until) break;
    if (at >= since) {
      days.push({ year: y, month: m, day: d, at });
      if (keep === "earliest" && days.length >= limit) break;
      if (keep === "latest" && days.length > limit) days.shift();
    }
    [y, m, d] = nextDay(y, m, d);
  }
  return days;
}

/** The "MM-DD" birthdays (and anniversaries) kept on a day: its own, and 29 February's on 28 February of a common year. */
export function monthDaysKeptOn(day: Pick<LocalDay, "year" | "month" | "day">): string[] {
  const own = monthDay(day.month, day.day);
  return day.month === 2 && day.day === 28 && !isLeapYear(day.year) ? [own, "02-29"] : [own];
}

/** Whether a date "YYYY-MM-DD" (a birthdate, or memberSince's local date) is kept on `day` (any year). */
export function keptOn(date: { month: number; day: number }, day: Pick<LocalDay, "year" | "month" | "day">): boolean {
  return monthDaysKeptOn(day).includes(monthDay(date.month, date.day));
}

/** A "YYYY-MM-DD…" date's parts (null when it is not one). */
export function dateParts(text: string): { year: number; month: number; day: number } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) ? { year, month, day } : null;
}

/** The local day after `day`. */
export const followingDay = (day: Pick<LocalDay, "year" | "month" | "day">) => {
  const [year, month, d] = nextDay(day.year, day.month, day.day);
  return { year, month, day: d };
};
