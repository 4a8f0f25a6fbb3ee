/**
 * The calendar of lifecycle campaigns (lib/domain/campaigns/lifecycle-calendar.ts): local days of a window in the
 * program's time zone, and the 29 February rule (kept on 28 February in a common year, on 29 February in a leap year).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { dateParts, isLeapYear, keptOn, localDaysIn, monthDaysKeptOn } from "@/lib/domain/campaigns/lifecycle-calendar";
import { localMidnight } from "@/lib/domain/campaigns/schedule";

const days = (since: string, until: string, tz: string, limit = 400, keep: "latest" | "earliest" = "latest") =>
  localDaysIn(new Date(since), new Date(until), tz, limit, keep).map(
    (d) => `${d.year}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")} ${d.at.toISOString()}`,
  );

test("local midnight in a time zone, across daylight saving time", () => {
  assert.equal(localMidnight(2026, 1, 15, "Europe/Madrid").toISOString(), "2026-01-14T23:00:00.000Z");
  assert.equal(localMidnight(2026, 7, 15, "Europe/Madrid").toISOString(), "2026-07-14T22:00:00.000Z");
  // The day daylight saving time starts (at 02:00) and the day after.
  assert.equal(localMidnight(2026, 3, 29, "Europe/Madrid").toISOString(), "2026-03-28T23:00:00.000Z");
  assert.equal(localMidnight(2026, 3, 30, "Europe/Madrid").toISOString(), "2026-03-29T22:00:00.000Z");
  assert.equal(localMidnight(2026, 2, 28, "UTC").toISOString(), "2026-02-28T00:00:00.000Z");
  assert.equal(localMidnight(2026, 1, 1, "America/New_York").toISOString(), "2026-01-01T05:00:00.000Z");
});

test("the local days whose midnight is in a window, both ends included", () => {
  assert.deepEqual(days("2026-01-14T23:00:00Z", "2026-01-16T22:59:59Z", "Europe/Madrid"), [
    "2026-01-15 2026-01-14T23:00:00.000Z",
    "2026-01-16 2026-01-15T23:00:00.000Z",
  ]);
  assert.deepEqual(days("2026-01-14T23:00:01Z", "2026-01-15T23:00:00Z", "Europe/Madrid"), [
    "2026-01-16 2026-01-15T23:00:00.000Z",
  ]);
  assert.deepEqual(days("2026-01-15T01:00:00Z", "2026-01-15T22:00:00Z", "Europe/Madrid"), []);
  assert.deepEqual(days("2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z", "UTC"), []);
  // At most `limit`: the latest when catching up, the earliest when looking for the next one.
  assert.deepEqual(days("2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "UTC", 2), [
    "2026-01-04 2026-01-04T00:00:00.000Z",
    "2026-01-05 2026-01-05T00:00:00.000Z",
  ]);
  assert.deepEqual(days("2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "UTC", 2, "earliest"), [
    "2026-01-01 2026-01-01T00:00:00.000Z",
    "2026-01-02 2026-01-02T00:00:00.000Z",
  ]);
  assert.equal(days("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z", "UTC").length, 366);
});

test("29 February is kept on 28 February in a common year and on 29 February in a leap year, once", () => {
  assert.equal(isLeapYear(2028), true);
  assert.equal(isLeapYear(2100), false);
  assert.equal(isLeapYear(2000), true);
  assert.equal(isLeapYear(2027), false);
  const leapling = dateParts("2000-02-29")!;
  const keptIn = (year: number) =>
    localDaysIn(new Date(Date.UTC(year, 0, 1)), new Date(Date.UTC(year, 11, 31)), "UTC", 400, "latest")
      .filter((d) => keptOn(leapling, d))
      .map((d) => `${d.month}-${d.day}`);
  assert.deepEqual(keptIn(2027), ["2-28"]);
  assert.deepEqual(keptIn(2028), ["2-29"]);
  assert.deepEqual(keptIn(2100), ["2-28"]);
  assert.deepEqual(monthDaysKeptOn({ year: 2027, month: 2, day: 28 }), ["02-28", "02-29"]);
  assert.deepEqual(monthDaysKeptOn({ year: 2028, month: 2, day: 28 }), ["02-28"]);
  assert.deepEqual(monthDaysKeptOn({ year: 2027, month: 3, day: 1 }), ["03-01"]);
  // Someone born on 28 February is kept on 28 February only.
  const born28 = dateParts("1990-02-28")!;
  assert.equal(keptOn(born28, { year: 2028, month: 2, day: 29 }), false);
  assert.equal(keptOn(born28, { year: 2028, month: 2, day: 28 }), true);
  assert.equal(dateParts("2001-02-29"), null);
  assert.equal(dateParts("1990-13-01"), null);
});
