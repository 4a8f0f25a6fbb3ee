import "server-only";
import { query, raw, sql, type Sql } from "@/lib/db/sql";
import type { Db } from "@/lib/db/types";
import { addDays, type ReportRange } from "../report-range";

/**
 * The dashboard's reports (the program's first page): a period of days in the program's time zone and the period of
 * the same length before it (lib/staff/report-range.ts). Definitions, stated once here and on the page:
 *  - members: customers who had joined and were not erased at the period's end; new members: joined in the period;
 *  - active members: customers with at least one ledger entry in the period other than an expiry (an expiry is the
 *    absence of activity, written by the system);
 *  - points issued: every positive entry (earn, positive adjustments); redeemed: `redeem` and `spend` entries;
 *    expired: `expire` entries; deducted: negative adjustments. A `reversal` corrects what it reverses, in the period
 *    it is written: a reversed earn (negative) lowers issued, a cancelled redemption or reversed spend (positive)
 *    lowers redeemed, so issued − redeemed − expired − deducted = net still holds;
 *  - outstanding points (the liability) at the end of a day: the sum of the balances of the customers not erased by
 *    then, i.e. the sum of their ledger entries before that instant. The ledger is append-only and
 *    balance = sum of entries (lib/domain/ledger.ts), so it answers exactly for any past instant; the point lots
 *    are updated in place and only know the present. It is computed from the present backwards rather than from the
 *    ledger's beginning: liability(t) = the current balances of the customers alive at t (not erased, or erased
 *    after t) − their entries from t on. That reads the balances (one row per customer) and the entries since the
 *    previous period's start, never the older ledger, so its cost does not grow with the program's history.
 *    Entries written after a customer's erasure (the expiry job still expires their lots) are not theirs to
 *    count once erased. Points past their expiry whose `expire` entry the expiry job has not written yet are still
 *    in balances (a spend expires them first): shown as "awaiting expiry";
 *  - redemption rate: points redeemed ÷ points issued in the same period (the loyalty industry's burn rate);
 *  - points expiring in the next 30 days, and the tier distribution: as of now (tiers keep no history), every tier
 *    of the program counted, those with no members too.
 * Cost on 1,000,000 customers / 5,000,000 entries: one pass over the program's ledger since the previous period's
 * start (twice: the day sums, and active members), two over the customers (members; balances for the liability).
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

/** A timestamp's day in the program's zone (a date: cheaper per row than text); null before the previous period. */
const localDay = (column: string) =>
  raw(`CASE WHEN ${column} >= b.prev_start THEN (${column} AT TIME ZONE b.tz)::date END`);

/** Grouped rows with their day as YYYY-MM-DD text, formatted once per day rather than once per row. */
const daysAsText = (columns: string[], grouped: Sql) =>
  sql`SELECT to_char(g.day, 'YYYY-MM-DD') AS day, ${raw(columns.map((c) => `g.${c}`).join(", "))} FROM (${grouped}) g`;

/**
 * The program's ledger since the previous period's start, per day in the program's zone — the days after the period
 * too, up to now: the liability is counted back from the present.
 */
const ledgerDaysSql = (q: Bounds) => sql`WITH ${bounds(q)}
${daysAsText(
  ["issued", "redeemed", "expired", "deducted", "net"],
  sql`SELECT (e."createdAt" AT TIME ZONE b.tz)::date AS day,
       coalesce(sum(e.points) FILTER (WHERE e.points > 0 AND e.type <> 'reversal'), 0)::float8
         + coalesce(sum(e.points) FILTER (WHERE e.points < 0 AND e.type = 'reversal'), 0)::float8 AS issued,
       coalesce(sum(-e.points) FILTER (WHERE e.type IN ('redeem', 'spend')), 0)::float8
         - coalesce(sum(e.points) FILTER (WHERE e.points > 0 AND e.type = 'reversal'), 0)::float8 AS redeemed,
       coalesce(sum(-e.points) FILTER (WHERE e.type = 'expire'), 0)::float8 AS expired,
       coalesce(sum(-e.points) FILTER (WHERE e.points < 0 AND e.type NOT IN ('redeem', 'spend', 'expire', 'reversal')), 0)::float8 AS deducted,
       coalesce(sum(e.points), 0)::float8 AS net
FROM "LedgerEntry" e CROSS JOIN b
WHERE e."programId" = ${q.programId}::uuid AND e."createdAt" >= b.prev_start
GROUP BY 1`,
)}`;

/**
 * Current balances: of the customers not erased (day null), and of those erased since the previous period's start
 * by the day they were erased (alive, so counted, at the end of every day before it).
 */
const balancesSql = (q: Bounds) => sql`WITH ${bounds(q)}
${daysAsText(
  ["balance"],
  sql`SELECT ${localDay('c."deletedAt"')} AS day, coalesce(sum(l.balance), 0)::float8 AS balance
FROM "Customer" c CROSS JOIN b JOIN "LoyaltyData" l ON l."customerId" = c.id
WHERE c."programId" = ${q.programId}::uuid AND (c."deletedAt" IS NULL OR c."deletedAt" >= b.prev_start)
GROUP BY 1`,
)}`;

/**
 * Entries written after their customer's erasure (the expiry job's), since the previous period's start: by the
 * entry's day and the erasure's (null: before the previous period). Few rows: erased customers only.
 */
const afterErasureSql = (q: Bounds) => sql`WITH ${bounds(q)}
SELECT to_char(g.day, 'YYYY-MM-DD') AS day, to_char(g.erased, 'YYYY-MM-DD') AS erased, g.points FROM (
SELECT (e."createdAt" AT TIME ZONE b.tz)::date AS day, ${localDay('c."deletedAt"')} AS erased, sum(e.points)::float8 AS points
FROM "Customer" c CROSS JOIN b
  JOIN "LedgerEntry" e ON e."customerId" = c.id AND e."createdAt" > c."deletedAt" AND e."createdAt" >= b.prev_start
WHERE c."programId" = ${q.programId}::uuid AND c."deletedAt" IS NOT NULL
GROUP BY 1, 2) g`;

const activeSql = (q: Bounds) => sql`WITH ${bounds(q)}
SELECT count(DISTINCT e."customerId") FILTER (WHERE e."createdAt" >= b.start)::int AS current,
       count(DISTINCT e."customerId") FILTER (WHERE e."createdAt" < b.start)::int AS previous
FROM "LedgerEntry" e CROSS JOIN b
WHERE e."programId" = ${q.programId}::uuid AND e."createdAt" >= b.prev_start AND e."createdAt" < b."end" AND e.type <> 'expire'`;

const membersSql = (q: Bounds) => sql`WITH ${bounds(q)}
SELECT count(*) FILTER (WHERE c."createdAt" < b."end" AND (c."deletedAt" IS NULL OR c."deletedAt" >= b."end"))::int AS current,
       count(*) FILTER (WHERE c."createdAt" < b.start AND (c."deletedAt" IS NULL OR c."deletedAt" >= b.start))::int AS previous
FROM "Customer" c CROSS JOIN b WHERE c."programId" = ${q.programId}::uuid`;

const newMembersSql = (q: Bounds) => sql`WITH ${bounds(q)}
${daysAsText(
  ["n"],
  sql`SELECT ${localDay('c."createdAt"')} AS day, count(*)::int AS n
FROM "Customer" c CROSS JOIN b
WHERE c."programId" = ${q.programId}::uuid AND c."createdAt" >= b.prev_start AND c."createdAt" < b."end"
GROUP BY 1`,
)}`;

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

type DayRow = { day: string; issued: number; redeemed: number; expired: number; deducted: number; net: number };

const rate = (redeemed: number, issued: number) => (issued > 0 ? redeemed / issued : null);

/** The report of `range` for the program, in its time zone. */
export async function programReport(db: Db, programId: string, range: ReportRange): Promise<Report> {
  const q: Bounds = { programId, previousFrom: range.previous.from, from: range.from, to: range.to };
  const [program, ledger, balances, afterErasure, active, members, newMembers, expiring, tiers] = await Promise.all([
    db.program.findUniqueOrThrow({ where: { id: programId }, select: { timeZone: true } }),
    query<DayRow>(db, ledgerDaysSql(q)),
    query<{ day: string | null; balance: number }>(db, balancesSql(q)),
    query<{ day: string; erased: string | null; points: number }>(db, afterErasureSql(q)),
    query<{ current: number; previous: number }>(db, activeSql(q)),
    query<{ current: number; previous: number }>(db, membersSql(q)),
    query<{ day: string | null; n: number }>(db, newMembersSql(q)),
    query<{ next30: number; overdue: number }>(db, expiringSql(q)),
    query<ReportTier>(db, tiersSql(q)),
  ]);
  const byDay = new Map(ledger.map((r) => [r.day, r]));
  const erasedBalanceByDay = new Map(balances.map((r) => [r.day, Number(r.balance)]));
  const newByDay = new Map(newMembers.map((r) => [r.day, Number(r.n)]));

  // liability(end of day D) = balances of the customers alive then − their entries after D (module comment).
  // Walking the days forward: entries after D = all since the previous period's start − those up to D; balances of
  // the customers alive then = not erased now + erased after D = all read − those erased up to D.
  let entriesAfter = ledger.reduce((s, r) => s + Number(r.net), 0);
  let aliveBalance = balances.reduce((s, r) => s + Number(r.balance), 0);
  const walk = (from: string, days: number) => {
    const out: (ReportDay & { deducted: number })[] = [];
    for (let i = 0; i < days; i++) {
      const day = addDays(from, i);
      const row = byDay.get(day);
      entriesAfter -= Number(row?.net ?? 0);
      aliveBalance -= erasedBalanceByDay.get(day) ?? 0;
      // Entries after D of customers erased by D: not theirs to subtract (they are not in aliveBalance).
      const afterTheirErasure = afterErasure
        .filter((r) => r.day > day && (r.erased === null || r.erased <= day))
        .reduce((s, r) => s + Number(r.points), 0);
      out.push({
        day,
        issued: Number(row?.issued ?? 0),
        redeemed: Number(row?.redeemed ?? 0),
        expired: Number(row?.expired ?? 0),
        deducted: Number(row?.deducted ?? 0),
        newMembers: newByDay.get(day) ?? 0,
        liability: aliveBalance - (entriesAfter - afterTheirErasure),
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
      members: Number(members[0]?.[which] ?? 0),
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
    timeZone: program.timeZone,
    range,
    current: totals(currentDays, "current"),
    previous: totals(previousDays, "previous"),
    days: currentDays.map(({ deducted: _d, ...d }) => d),
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
