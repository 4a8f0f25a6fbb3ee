import "server-only";
import { query, sql } from "@/lib/db/sql";
import type { Db } from "@/lib/db/types";
import { netOf, readDays, zeroDay } from "@/lib/domain/accounting";
import { addDays, type ReportRange } from "../report-range";

/**
 * The dashboard's reports (the program's first page): a period of days in the program's time zone and the period of
 * the same length before it (lib/staff/report-range.ts). Definitions, stated once here and on the page:
 *  - members: customers who had joined and were not erased at the period's end; new members: joined in the period;
 *  - active members: customers with at least one ledger entry in the period other than an expiry (an expiry is the
 *    absence of activity, written by the system);
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
 *    of the program counted, those with no members too.
 * Cost: the day rows of the two periods (a few hundred), plus what is still read from the big tables: active members
 * (one pass over the program's ledger of the two periods), the tier distribution (the customers) and the lots
 * expiring in the next 30 days (bench/reports.ts measures it at scale).
 * Computed at most once a minute per program and range, shared by concurrent viewers (`cachedReport`).
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

/** The program and the days a report reads: the previous period's first day, the period's first and last days. */
interface Bounds {
  programId: string;
  previousFrom: string;
  from: string;
  to: string;
}

/** The bounds as instants, in the program's time zone. */
const bounds = (q: Bounds) => sql`
  p AS (SELECT "timeZone" AS tz FROM "Program" WHERE id = ${q.programId}::uuid),
  b AS (SELECT p.tz, (${q.previousFrom}::date)::timestamp AT TIME ZONE p.tz AS prev_start, (${q.from}::date)::timestamp AT TIME ZONE p.tz AS start,
               (${q.to}::date + 1)::timestamp AT TIME ZONE p.tz AS "end" FROM p)`;

const activeSql = (q: Bounds) => sql`WITH ${bounds(q)}
SELECT count(DISTINCT e."customerId") FILTER (WHERE e."createdAt" >= b.start)::int AS current,
       count(DISTINCT e."customerId") FILTER (WHERE e."createdAt" < b.start)::int AS previous
FROM "LedgerEntry" e CROSS JOIN b
WHERE e."programId" = ${q.programId}::uuid AND e."createdAt" >= b.prev_start AND e."createdAt" < b."end" AND e.type <> 'expire'`;

/** Lots of live customers: due in the next 30 days, and already past expiry but not yet expired by the job. */
const expiringSql = (q: Bounds) => sql`
SELECT coalesce(sum(l.remaining) FILTER (WHERE l."expiresAt" > now()), 0)::float8 AS next30,
       coalesce(sum(l.remaining) FILTER (WHERE l."expiresAt" <= now()), 0)::float8 AS overdue
FROM "PointLot" l JOIN "Customer" c ON c.id = l."customerId"
WHERE l."expiresAt" <= now() + interval '30 days' AND l.remaining > 0
  AND c."programId" = ${q.programId}::uuid AND c."deletedAt" IS NULL`;

/** Every tier of the program with its live members (0 included), then those with no tier. */
const tiersSql = (q: Bounds) => sql`
SELECT * FROM (
SELECT t.name, t."requiredPoints", count(c.id)::int AS customers
FROM "Tier" t
  LEFT JOIN "CustomerTier" ct ON ct."currentTierId" = t.id
  LEFT JOIN "Customer" c ON c.id = ct."customerId" AND c."deletedAt" IS NULL
WHERE t."programId" = ${q.programId}::uuid
GROUP BY t.id, t.name, t."requiredPoints"
UNION ALL
SELECT 'No tier', NULL, count(*)::int
FROM "CustomerTier" ct JOIN "Customer" c ON c.id = ct."customerId"
WHERE c."programId" = ${q.programId}::uuid AND c."deletedAt" IS NULL AND ct."currentTierId" IS NULL
) tiers ORDER BY "requiredPoints" NULLS FIRST, name`;

const rate = (redeemed: number, issued: number) => (issued > 0 ? redeemed / issued : null);

/** The report of `range` for the program, in its time zone. */
export async function programReport(db: Db, programId: string, range: ReportRange): Promise<Report> {
  const q: Bounds = { programId, previousFrom: range.previous.from, from: range.from, to: range.to };
  const [read, active, expiring, tiers] = await Promise.all([
    readDays(db, programId, range.previous.from, range.to),
    query<{ current: number; previous: number }>(db, activeSql(q)),
    query<{ next30: number; overdue: number }>(db, expiringSql(q)),
    query<ReportTier>(db, tiersSql(q)),
  ]);
  // Walking the days forward from the sums of every day before the previous period (lib/domain/accounting.ts).
  let liability = netOf(read.before);
  let members = read.before.newMembers - read.before.erasedMembers;
  const walk = (from: string, days: number) => {
    const out: (ReportDay & { deducted: number; members: number })[] = [];
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
      });
    }
    return out;
  };
  const previousDays = walk(range.previous.from, range.days);
  const currentDays = walk(range.from, range.days);
  const totals = (days: typeof currentDays, which: "current" | "previous"): ReportTotals => {
    const sum = (k: "issued" | "redeemed" | "expired" | "deducted" | "newMembers") =>
      days.reduce((s, d) => s + d[k], 0);
    return {
      members: days.at(-1)?.members ?? 0,
      newMembers: sum("newMembers"),
      activeMembers: Number(active[0]?.[which] ?? 0),
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
    current: totals(currentDays, "current"),
    previous: totals(previousDays, "previous"),
    days: currentDays.map(({ deducted: _d, members: _m, ...d }) => d),
    tiers: tiers.map((t) => ({ ...t, customers: Number(t.customers) })),
    expiringNext30Days: Number(expiring[0]?.next30 ?? 0),
    awaitingExpiry: Number(expiring[0]?.overdue ?? 0),
  };
}

const REPORT_TTL_MS = 60_000;
const MAX_CACHED_REPORTS = 200;
const reports = new Map<string, { at: number; value: Promise<Report & { computedAt: string }> }>();

/**
 * The report, computed at most once a minute per program and range and shared by concurrent viewers: on a program
 * with 1,000,000 customers and 5,000,000 ledger entries its queries take seconds (bench/export.ts times them).
 */
export function cachedReport(db: Db, programId: string, range: ReportRange) {
  const key = `${programId}|${range.from}|${range.to}`;
  const hit = reports.get(key);
  if (hit && Date.now() - hit.at < REPORT_TTL_MS) return hit.value;
  if (reports.size >= MAX_CACHED_REPORTS) reports.delete(reports.keys().next().value!);
  const value = programReport(db, programId, range).then((r) => ({ ...r, computedAt: new Date().toISOString() }));
  reports.set(key, { at: Date.now(), value });
  value.catch(() => reports.delete(key));
  return value;
}
