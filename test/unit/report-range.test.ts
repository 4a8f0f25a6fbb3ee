/**
 * The reports' period (lib/staff/report-range.ts) and the CSV writing of the exports (lib/exports/csv.ts), by example:
 * presets end today in the program's zone, the previous period has the same length, a bad custom range falls back
 * with a reason; RFC 4180 quoting and the formula guard.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { isDay, resolveRange, todayIn } from "@/lib/staff/report-range";
import { EXPORT_FILTERS } from "@/lib/exports/kinds";
import { toCsv } from "@/lib/exports/csv";

describe("report range", () => {
  const now = new Date("2026-03-31T22:30:00Z"); // 1 April 00:30 in Madrid (summer time, UTC+2)

  test("today is the program's day, not UTC's", () => {
    assert.equal(todayIn("UTC", now), "2026-03-31");
    assert.equal(todayIn("Europe/Madrid", now), "2026-04-01");
    assert.equal(todayIn("America/Los_Angeles", now), "2026-03-31");
  });

  test("a preset ends today and the previous period is as long, just before it", () => {
    assert.deepEqual(resolveRange({ range: "7d" }, "Europe/Madrid", now), {
      range: "7d",
      from: "2026-03-26",
      to: "2026-04-01",
      days: 7,
      previous: { from: "2026-03-19", to: "2026-03-25" },
      error: null,
    });
    const year = resolveRange({ range: "365d" }, "UTC", now);
    assert.equal(year.days, 365);
    assert.equal(year.previous.to, "2025-03-31");
  });

  test("no range, or an unknown one, is the last 30 days", () => {
    for (const range of [undefined, "12d", "custom;drop"]) {
      const r = resolveRange({ range }, "UTC", now);
      assert.equal(r.range, "30d");
      assert.equal(r.days, 30);
    }
  });

  test("a custom range across a month and a leap day", () => {
    const r = resolveRange({ range: "custom", from: "2028-02-27", to: "2028-03-02" }, "UTC", now);
    assert.equal(r.days, 5);
    assert.deepEqual(r.previous, { from: "2028-02-22", to: "2028-02-26" });
    assert.equal(r.error, null);
  });

  test("a custom range that is not one falls back to 30 days and says why", () => {
    for (const [from, to, reason] of [
      ["2026-02-30", "2026-03-01", /both dates/],
      ["2026-03-10", "2026-03-01", /must not end before/],
      ["2020-01-01", "2026-01-01", /at most 731 days/],
      [undefined, "2026-01-01", /both dates/],
    ] as const) {
      const r = resolveRange({ range: "custom", from, to }, "UTC", now);
      assert.equal(r.range, "30d");
      assert.match(r.error ?? "", reason);
    }
  });
});

describe("staff dates (issue 28: no 5xx from a date)", () => {
  test("isDay: real days of 1970-2100 only; month 13, day 32, year 0001 or 9999 are not days, and never throw", () => {
    for (const day of ["1970-01-01", "2024-02-29", "2100-12-31"]) assert.equal(isDay(day), true, day);
    for (const day of [
      "2026-13-01",
      "2026-00-10",
      "2026-02-30",
      "2026-01-32",
      "0001-01-01",
      "1969-12-31",
      "2101-01-01",
      "9999-12-31",
      "+02026-01-01",
      "",
    ])
      assert.equal(isDay(day), false, day);
  });

  test("a custom report range out of bounds falls back to 30 days with a message", () => {
    const now = new Date("2026-06-15T12:00:00Z");
    for (const [from, to] of [
      ["0001-01-01", "0001-01-31"],
      ["2026-13-01", "2026-13-05"],
      ["2026-01-01", "9999-12-31"],
    ]) {
      const r = resolveRange({ range: "custom", from, to }, "UTC", now);
      assert.equal(r.range, "30d", `${from}..${to}`);
      assert.match(r.error ?? "", /1970 to 2100/);
    }
  });

  test("exports refuse days outside 1970-2100 at the edge (400, not a database error)", () => {
    for (const kind of ["ledger", "redemptions", "audit-log"] as const) {
      assert.equal(EXPORT_FILTERS[kind].safeParse({ to: "9999-12-31" }).success, false, kind);
      assert.equal(EXPORT_FILTERS[kind].safeParse({ from: "0001-01-01" }).success, false, kind);
      assert.equal(EXPORT_FILTERS[kind].safeParse({ from: "2026-01-01", to: "2026-12-31" }).success, true, kind);
    }
  });
});

describe("CSV", () => {
  test("RFC 4180: commas, quotes and line breaks are quoted and come back as written", () => {
    const cells = ["a,b", 'say "hi"', "two\nlines", "cr\ronly", "plain", "", null, 42, -7, true];
    const text = toCsv([cells]);
    assert.ok(text.endsWith("\r\n"));
    assert.deepEqual(parse(text)[0], [
      "a,b",
      'say "hi"',
      "two\nlines",
      "cr\ronly",
      "plain",
      "",
      "",
      "42",
      "-7",
      "true",
    ]);
  });

  test("threat-csv-formula-injection: text starting with = + - @ tab or CR is written as text; numbers are not touched", () => {
    const cells = ["=1+1", "+1 555 0100", "-2+3", "@SUM(A1)", "\t=x", "\r=x", "safe=1", -300, 0];
    assert.deepEqual(parse(toCsv([cells]), { relax_quotes: true })[0], [
      "'=1+1",
      "'+1 555 0100",
      "'-2+3",
      "'@SUM(A1)",
      "'\t=x",
      "'\r=x",
      "safe=1",
      "-300",
      "0",
    ]);
  });
});
