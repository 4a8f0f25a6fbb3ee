import "server-only";
import { query, sql } from "@/lib/db/sql";
import type { Db } from "@/lib/db/types";
import { ACTIVE_LOOKBACK_DAYS, netOf, readDays, zeroDay } from "@/lib/domain/accounting";
import { realTime } from "@/lib/domain/real-time";
import { addDays, MAX_REPORT_DAYS, type ReportRange } from "../report-range";

// A period's active members are read from the days' counts of those active within the days before (accounting.ts).
if (MAX_REPORT_DAYS - 1 > ACTIVE_LOOKBACK_DAYS) throw new Error("ACTIVE_LOOKBACK_DAYS is shorter than a report range");

/**
 * The dashboard's reports (the program's first page): a period of days in the program's time zone and the period of
 * the same length before it (lib/staff/report-range.ts). Definitions, stated once here and on the page:
 *  - members: customers who had joined and were not erased at the period's end; new members: joined in the period;
 *  - active members: customers with at least one ledger entry in the period other than an expiry (an expiry is the
 *    absence of activity, written by the system), erased customers included for their days before the erasure; read
 *    from the days (lib/domain/accounting.ts ACTIVE_LOOKBACK_DAYS: each day keeps how many of its active customers
 *    had been active within the k days before, so the distinct count of a period is a sum over its days);
 *  - the day figures come from the points accounting's days (lib/domain/accounting.ts `readDays`: the daily
 *    aggregates rolled up by the `points.rollup` job, and the days since computed from the ledger), so their cost does
 *    not grow with the ledger: points issued = earned − reversed earns + adjustments up; redeemed = redeemed − cancelled
 *    redemptions and reversed spends; expired; deducted = adjustments down (a reversed adjustment counts in the other
 *    direction), so issued − redeemed − expired − deducted = the day's change of the liability;
 *  - outstanding points (the liability) at the end of a day: the accounting's closing outstanding, i.e. the balances
 *    of the customers not erased by then. An erased customer's balance leaves it on the day of the erasure, and the
 *    entries written after it (the expiry job still expires their lots) count nowhere. Points past their expiry whose
 *    `expire` entry the expiry job has not written yet are still in balances (a spend expires them first): shown as
 *    "awaiting expiry";
 *  - redemption rate: points redeemed ÷ points issued in the same period (the loyalty industry's burn rate);
 *  - points expiring in the next 30 days, and the tier distribution: as of now (tiers keep no history), every tier
 *    of the program counted, those with no members too. "Now" is the program's business time (lib/domain/clock.ts):
 *    a test program's clock, real time for a live program, passed down by the page (`now`), never the database's.
 * Cost: the day rows of the two periods (a few hundred: today's is the job's day so far plus the ledger of the
 * minutes since it, accounting.ts `readDays`), plus two index-only reads, both exact as of now: the tier distribution
 * (the program's CustomerTier index, less the erased customers' rows) and the lots expiring in the next 30 days (the
 * partial index of lots with points left, less the erased customers' lots). bench/reports.ts measures it at
 * 1,000,000 customers and 10,000,000 ledger entries: the tier count (~50–80 ms, an index-only read of 1,000,000
 * entries) is now the dearest part, so it stays live rather than "as of" the day so far.
 * Computed at most once a minute per program and range (and test clock), shared by concurrent viewers
 * (`cachedReport`).
 */

export interface ReportTotals {
  members: number;
  newMembers: number;
  activeMembers: number;
  issued: number;
  redeemed: number;
  expired: number;
  deducted: number;
  /** Outstanding points at the end of the period. */
  liability: number;
  /** redeemed ÷ issued, or null when nothing was issued. */
  redemptionRate: number | null;
}

export interface ReportDay {
  day: string;
  issued: number;
  redeemed: number;
  expired: number;
  newMembers: number;
  /** Outstanding points at the end of the day. */
  liability: number;
}

export interface ReportTier {
  name: string;
  requiredPoints: number | null;
  customers: number;
}

export interface Report {
  timeZone: string;
  range: ReportRange;
  current: ReportTotals;
  previous: ReportTotals;
  /** Every day of the current period, oldest first. */
  days: ReportDay[];
  tiers: ReportTier[];
  expiringNext30Days: number;
  awaitingExpiry: number;
}

/**
 * The program, the days a report reads (the previous period's first day, the period's first and last days) and the
 * program's business time the report is as of.
 */
interface Bounds {
  programId: string;
  previousFrom: string;
  from: string;
  to: string;
  now: Date;
}

/**
 * Lots of live customers: due in the next 30 days, and already past expiry but not yet expired by the job. All the
 * program's lots with points left from the partial index (no table read), less those of erased customers (few: the
 * partial index of erased customers); each side summed in one pass (both figures from one read of the index range).
 */
const expiringSql = (q: Bounds) => {
  const now = sql`${q.now.toISOString()}::timestamptz`;
  const sums = sql`coalesce(sum(l.remaining) FILTER (WHERE l."expiresAt" > ${now}), 0)::float8 AS next30,
    coalesce(sum(l.remaining) FILTER (WHERE l."expiresAt" <= ${now}), 0)::float8 AS overdue`;
  return sql`
WITH lots AS (
  SELECT ${sums} FROM "PointLot" l
  WHERE l."programId" = ${q.programId}::uuid AND l.remaining > 0 AND l."expiresAt" <= ${now} + interval '30 days'),
gone AS (
  SELECT ${sums} FROM "Customer" c JOIN "PointLot" l ON l."customerId" = c.id
  WHERE c."programId" = ${q.programId}::uuid AND c."deletedAt" IS NOT NULL
    AND l.remaining > 0 AND l."expiresAt" <= ${now} + interval '30 days')
SELECT lots.next30 - gone.next30 AS next30, lots.overdue - gone.overdue AS overdue FROM lots, gone`;
};

/**
 * Every tier of the program with its live members (0 included), then those with no tier: the program's tier rows
 * counted by tier from the CustomerTier (programId, currentTierId) index alone, less the rows of erased customers.
 */
const tiersSql = (q: Bounds) => sql`
WITH counts AS (
  SELECT ct."currentTierId" AS id, count(*) AS n FROM "CustomerTier" ct
  WHERE ct."programId" = ${q.programId}::uuid GROUP BY 1),
gone AS (
  SELECT ct."currentTierId" AS id, count(*) AS n
  FROM "Customer" c JOIN "CustomerTier" ct ON ct."customerId" = c.id
  WHERE c."programId" = ${q.programId}::uuid AND c."deletedAt" IS NOT NULL GROUP BY 1)
SELECT * FROM (
SELECT t.name, t."requiredPoints", (coalesce(k.n, 0) - coalesce(g.n, 0))::int AS customers
FROM "Tier" t LEFT JOIN counts k ON k.id = t.id LEFT JOIN gone g ON g.id = t.id
WHERE t."programId" = ${q.programId}::uuid
UNION ALL
SELECT 'No tier', NULL, ((SELECT coalesce(sum(n), 0) FROM counts WHERE id IS NULL)
                        - (SELECT coalesce(sum(n), 0) FROM gone WHERE id IS NULL))::int
) tiers ORDER BY "requiredPoints" NULLS FIRST, name`;

const rate = (redeemed: number, issued: number) => (issued > 0 ? redeemed / issued : null);

/** The report of `range` for the program, in its time zone, as of `now` (the program's business time). */
export async function programReport(db: Db, programId: string, range: ReportRange, now: Date): Promise<Report> {
  const q: Bounds = { programId, previousFrom: range.previous.from, from: range.from, to: range.to, now };
  const [read, expiring, tiers] = await Promise.all([
    readDays(db, programId, range.previous.from, range.to, range.previous.from, [range.previous.from, range.from]),
    query<{ next30: number; overdue: number }>(db, expiringSql(q)),
    query<ReportTier>(db, tiersSql(q)),
  ]);
  // Walking the days forward from the sums of every day before the previous period (lib/domain/accounting.ts).
  let liability = netOf(read.before);
  let members = read.before.newMembers - read.before.erasedMembers;
  const walk = (from: string, days: number) => {
    const out: (ReportDay & { deducted: number; members: number; activeNew: number })[] = [];
    for (let i = 0; i < days; i++) {
      const day = addDays(from, i);
      const r = read.byDay.get(day) ?? zeroDay(day);
      liability += netOf(r);
      members += r.newMembers - r.erasedMembers;
      out.push({
        day,
        issued: r.earned - r.reversed + r.adjustedUp,
        redeemed: r.redeemed - r.redemptionsCancelled,
        expired: r.expired,
        deducted: r.adjustedDown,
        newMembers: r.newMembers,
        liability,
        members,
        activeNew: r.activeNew ?? 0,
      });
    }
    return out;
  };
  const previousDays = walk(range.previous.from, range.days);
  const currentDays = walk(range.from, range.days);
  const totals = (days: typeof currentDays): ReportTotals => {
    const sum = (k: "issued" | "redeemed" | "expired" | "deducted" | "newMembers" | "activeNew") =>
      days.reduce((s, d) => s + d[k], 0);
    return {
      members: days.at(-1)?.members ?? 0,
      newMembers: sum("newMembers"),
      activeMembers: sum("activeNew"),
      issued: sum("issued"),
      redeemed: sum("redeemed"),
      expired: sum("expired"),
      deducted: sum("deducted"),
      liability: days.at(-1)?.liability ?? 0,
      redemptionRate: rate(sum("redeemed"), sum("issued")),
    };
  };
  return {
    timeZone: read.timeZone,
    range,
    current: totals(currentDays),
    previous: totals(previousDays),
    days: currentDays.map(({ deducted: _d, members: _m, activeNew: _a, ...d }) => d),
    tiers: tiers.map((t) => ({ ...t, customers: Number(t.customers) })),
    expiringNext30Days: Number(expiring[0]?.next30 ?? 0),
    awaitingExpiry: Number(expiring[0]?.overdue ?? 0),
  };
}

const REPORT_TTL_MS = 60_000;
const MAX_CACHED_REPORTS = 200;
const reports = new Map<string, { at: number; value: Promise<Report & { computedAt: string }> }>();

/**
 * The report, computed at most once a minute per program and range and shared by concurrent viewers (the dashboard
 * page; bench/reports.ts times `programReport`, the first viewer's cost). `clockAt` is a test program's stored clock
 * (null: a live program, on real time): the report is as of it, and a report computed before an advance of the clock
 * is never served after it (the clock is part of the key). `computedAt` is that business time.
 */
export function cachedReport(db: Db, programId: string, range: ReportRange, clockAt: Date | null) {
  const key = `${programId}|${range.from}|${range.to}|${clockAt?.toISOString() ?? "live"}`;
  const hit = reports.get(key);
  if (hit && realTime().getTime() - hit.at < REPORT_TTL_MS) return hit.value;
  if (reports.size >= MAX_CACHED_REPORTS) reports.delete(reports.keys().next().value!);
  const now = clockAt ?? realTime();
  const value = programReport(db, programId, range, now).then((r) => ({ ...r, computedAt: now.toISOString() }));
  reports.set(key, { at: realTime().getTime(), value });
  value.catch(() => reports.delete(key));
  return value;
}
