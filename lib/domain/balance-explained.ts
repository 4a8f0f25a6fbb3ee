import "server-only";
import { isoSql, type Db, type Tx } from "@/lib/db/types";
import { customerNotFound } from "@/lib/errors";
import { programNow } from "./clock";
import { addMonths, recalculate, type TierState } from "./tier-rules";
import { rankedTiers, tiersColumn, type RankedTier } from "./tier-ranking";
import { EXPIRY_CHART_MONTHS, EXPIRY_WINDOWS_DAYS, MAX_LISTED_LOTS } from "./balance-explained-limits";
import { tierProgress } from "./tier-progress";
import { lotExpirySql } from "./expiry-rules";
import { LEDGER_TYPES, memberOf, TIER_STATUSES, type LedgerType, type TierStatus } from "./vocabulary";

/**
 * The one place for "why is my balance X?" (API.md §4, issue 11 item 5): the balance as the sum of the customer's open
 * lots (what is left of each positive entry, spent and expired oldest first: ledger.ts), the points about to expire,
 * and the tier points of the current period with what counts towards them and what does not, plus the tier the
 * customer holds, will hold when the period closes, and the next one. The API (`…/balance`, `/me/balance`) and the
 * customer page show this same value.
 *
 * Bounded for a customer with thousands of lots: the aggregates are computed in SQL, and only the MAX_LISTED_LOTS
 * lots spent (or expiring) first are listed; `lotsCount` and `unlistedPoints` account for the rest. Both reads run in
 * one REPEATABLE READ snapshot, so the lots always add up to the balance even while the customer earns or spends.
 *
 * The tier state is shown as of now: a period that has ended but that the scheduled job has not closed yet is closed
 * here in memory (tier-rules.ts `recalculate`, the rule the next earn or the job would apply), never written.
 */

/**
 * A `reversal` entry of this period that lowers its tier points: the reversal of an earn that counted in this period
 * (lib/domain/reversals.ts). SQL over the entry `e`, with `$4` the period's start.
 */
const REVERSES_PERIOD_EARN = `EXISTS (SELECT 1 FROM "LedgerEntry" o WHERE o.id = e."reversesId" AND o.type = 'earn' AND o."createdAt" >= $4::timestamptz)`;

export interface TierRef {
  id: string;
  name: string;
  requiredPoints: number;
}

export interface LedgerTotal {
  type: LedgerType;
  /** Signed sum of the entries' points. */
  points: number;
  entries: number;
}

export interface OpenLot {
  /** The ledger entry the points came from. */
  transactionId: string;
  type: LedgerType;
  reason: string | null;
  /** The entry's points; `remaining` is what is left of them. */
  points: number;
  remaining: number;
  earnedAt: string;
  expiresAt: string | null;
}

/** Pending points (pending.ts): not in the balance; when each matures (null: when its order is confirmed). */
export interface PendingItem {
  id: string;
  points: number;
  orderId: string | null;
  createdAt: string;
  maturesAt: string | null;
}

export interface BalanceExplained {
  balance: number;
  asOf: string;
  /** Open lots in the order they are spent (and expire): soonest expiry first, never-expiring last, oldest first. */
  lots: OpenLot[];
  lotsCount: number;
  lotsTruncated: boolean;
  /** Points held in lots not listed: sum(lots.remaining) + unlistedPoints = balance. */
  unlistedPoints: number;
  /** Points earned but not spendable yet: not in `balance`; soonest to mature first. */
  pending: { points: number; items: PendingItem[] };
  expiring: { within30Days: number; within60Days: number; within90Days: number };
  expiringByMonth: { month: string; points: number }[];
  tier: {
    current: TierRef | null;
    status: TierStatus;
    projected: TierRef | null;
    next: TierRef | null;
    pointsToNext: number;
    points: number;
    periodStart: string;
    periodEnd: string | null;
    earned: { points: number; entries: number };
    reversed: { points: number; entries: number };
    notCounted: LedgerTotal[];
  };
}

interface StateRow {
  balance: number;
  tierStatus: string;
  currentTierId: string | null;
  carryTierId: string | null;
  currentTierPoints: number;
  carryTierPoints: number;
  tierChangedAt: Date | string | null;
  recalculationDate: Date | string | null;
  customerCreatedAt: Date | string;
  periodMonths: number;
  tiers: RankedTier[] | string;
}

const STATE_SQL = `
SELECT l.balance, l."tierStatus", ct."currentTierId", ct."carryTierId", ct."currentTierPoints", ct."carryTierPoints",
       ct."tierChangedAt", ct."recalculationDate", c."createdAt" AS "customerCreatedAt", p."tierPeriodMonths" AS "periodMonths",
       ${tiersColumn("p.id")} AS tiers
FROM "Customer" c
  JOIN "LoyaltyData" l ON l."programId" = c."programId" AND l."customerId" = c.id
  JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id
  JOIN "Program" p ON p.id = c."programId"
WHERE c."programId" = $1::uuid AND c.id = $2::uuid AND c."deletedAt" IS NULL`;

/**
 * The lots, their sums and the period's ledger totals as one JSON value ($1 program, $2 customer, $3 now, $4 period
 * start, $5 lots listed). Lots: the (customerId, createdAt, id) index; entries: the (customerId, createdAt) index.
 */
const EXPLAIN_SQL = `
WITH open AS (
  -- The lot's expiry by the one rule (expiry-rules.ts): fixed, or an inactivity lot's from the last activity.
  SELECT o.id, o.remaining, o."createdAt", ${lotExpirySql("o")} AS "expiresAt", o."ledgerEntryId"
  FROM "PointLot" o WHERE o."programId" = $1::uuid AND o."customerId" = $2::uuid AND o.remaining > 0
), listed AS (
  SELECT o.*, e.type, e.reason, e.points
  FROM open o JOIN "LedgerEntry" e ON e.id = o."ledgerEntryId"
  ORDER BY coalesce(o."expiresAt", 'infinity'::timestamptz), o."createdAt", o.id
  LIMIT $5
), sums AS (
  SELECT count(*)::int AS lots, coalesce(sum(remaining), 0)::bigint AS points,
         ${EXPIRY_WINDOWS_DAYS.map(
           (d) =>
             `coalesce(sum(remaining) FILTER (WHERE "expiresAt" <= $3::timestamptz + interval '${d} days'), 0)::bigint AS d${d}`,
         ).join(", ")}
  FROM open
), months AS (
  -- Lots past their expiry that the job has not expired yet count in the current month.
  SELECT to_char(greatest(date_trunc('month', "expiresAt" AT TIME ZONE 'UTC'), date_trunc('month', $3::timestamptz AT TIME ZONE 'UTC')), 'YYYY-MM') AS month,
         sum(remaining)::bigint AS points
  FROM open
  WHERE "expiresAt" < (date_trunc('month', $3::timestamptz AT TIME ZONE 'UTC') + interval '${EXPIRY_CHART_MONTHS} months') AT TIME ZONE 'UTC'
  GROUP BY 1
), kinds AS (
  SELECT e.type,
         CASE WHEN e.type = 'earn' AND e.points > 0 THEN 'earned'
              WHEN e.type = 'reversal' AND ${REVERSES_PERIOD_EARN} THEN 'reversed'
              ELSE 'other' END AS class,
         -- A reversed earn lowers tier points by the points requested, spent ones included (metadata.requested).
         sum(CASE WHEN e.type = 'reversal' AND ${REVERSES_PERIOD_EARN}
                  THEN -coalesce((e.metadata->>'requested')::int, -e.points) ELSE e.points END)::bigint AS points,
         count(*)::int AS entries
  FROM "LedgerEntry" e
  WHERE e."customerId" = $2::uuid AND e."programId" = $1::uuid AND e."createdAt" >= $4::timestamptz
  GROUP BY 1, 2
)
SELECT json_build_object(
  'lots', (SELECT coalesce(json_agg(json_build_object(
             'transactionId', x."ledgerEntryId", 'type', x.type, 'reason', x.reason, 'points', x.points, 'remaining', x.remaining,
             'earnedAt', ${isoSql('x."createdAt"')}, 'expiresAt', ${isoSql('x."expiresAt"')})
           ORDER BY coalesce(x."expiresAt", 'infinity'::timestamptz), x."createdAt", x.id), '[]') FROM listed x),
  'sums', (SELECT row_to_json(sums) FROM sums),
  'months', (SELECT coalesce(json_agg(json_build_object('month', month, 'points', points)), '[]') FROM months),
  'kinds', (SELECT coalesce(json_agg(json_build_object('type', type, 'class', class, 'points', points, 'entries', entries)
            ORDER BY type, class), '[]') FROM kinds),
  'pending', (SELECT coalesce(json_agg(json_build_object('id', x.id, 'points', x.points, 'orderId', x."orderId",
                'createdAt', ${isoSql('x."createdAt"')}, 'maturesAt', ${isoSql('x."maturesAt"')})
              ORDER BY x."maturesAt" NULLS LAST, x."createdAt", x.id), '[]')
              FROM "PendingPoints" x WHERE x."customerId" = $2::uuid AND x."programId" = $1::uuid AND x.status = 'pending')
)::text AS body`;

interface ExplainRow {
  lots: OpenLot[];
  sums: { lots: number; points: number; d30: number; d60: number; d90: number };
  months: { month: string; points: number }[];
  kinds: { type: string; class: "earned" | "reversed" | "other"; points: number; entries: number }[];
  pending: PendingItem[];
}

const date = (d: Date | string | null) => (d === null ? null : new Date(d));

/** "2026-11" for the month of `at` plus `add` months, in UTC. */
const monthOf = (at: Date, add: number) => {
  const d = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + add, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
};

/**
 * The balance of the program's live customer explained at `now`; null when there is no such customer (unknown,
 * another program's, erased).
 */
export async function findBalanceExplained(
  db: Db,
  programId: string,
  customerId: string,
  now?: Date,
): Promise<BalanceExplained | null> {
  const at = now ?? programNow(programId);
  const read = (tx: Db) => readExplained(tx, programId, customerId, at);
  // One snapshot for both statements (a read-only transaction); inside the caller's transaction, the caller's.
  return "$transaction" in db ? db.$transaction((tx: Tx) => read(tx), { isolationLevel: "RepeatableRead" }) : read(db);
}

/** `findBalanceExplained`, or 404 `customer_not_found`. */
export async function explainBalance(db: Db, programId: string, customerId: string, now?: Date) {
  const explained = await findBalanceExplained(db, programId, customerId, now);
  if (!explained) throw customerNotFound();
  return explained;
}

async function readExplained(db: Db, programId: string, customerId: string, now: Date) {
  const [row] = await db.$queryRawUnsafe<StateRow[]>(STATE_SQL, programId, customerId);
  if (!row) return null;
  const tiers = rankedTiers(row.tiers);
  const stored: TierState = {
    currentTierId: row.currentTierId,
    carryTierId: row.carryTierId,
    currentTierPoints: row.currentTierPoints,
    carryTierPoints: row.carryTierPoints,
    tierChangedAt: date(row.tierChangedAt),
    recalculationDate: date(row.recalculationDate),
    tierStatus: memberOf(TIER_STATUSES, row.tierStatus),
  };
  // As of now: a period that ended is closed (in memory only), as the next earn or the tier job would close it.
  const state = recalculate(stored, tiers, row.periodMonths, now);
  const end = state.recalculationDate;
  const created = new Date(row.customerCreatedAt);
  // The period started a period length before its end, or when the customer was created (its first period).
  const startGuess = end ? addMonths(end, -row.periodMonths) : created;
  const start = startGuess.getTime() < created.getTime() ? created : startGuess;
  // What the period's close at its end would leave: the tier the customer holds next period if nothing else is earned.
  const projected = end ? recalculate(state, tiers, row.periodMonths, end).currentTierId : state.currentTierId;
  const progress = tierProgress(tiers, state.currentTierId, state.currentTierPoints);

  const [explained] = await db.$queryRawUnsafe<{ body: string }[]>(
    EXPLAIN_SQL,
    programId,
    customerId,
    now.toISOString(),
    start.toISOString(),
    MAX_LISTED_LOTS,
  );
  const x = JSON.parse(explained!.body) as ExplainRow;
  const ref = (id: string | null) => {
    const t = tiers.find((tier) => tier.id === id);
    return t ? { id: t.id, name: t.name, requiredPoints: t.requiredPoints } : null;
  };
  const total = (cls: "earned" | "reversed") => {
    const rows = x.kinds.filter((k) => k.class === cls);
    return {
      points: Math.abs(rows.reduce((s, k) => s + Number(k.points), 0)),
      entries: rows.reduce((s, k) => s + k.entries, 0),
    };
  };
  const listedPoints = x.lots.reduce((s, l) => s + l.remaining, 0);
  const byMonth = new Map(x.months.map((m) => [m.month, Number(m.points)]));
  return {
    balance: row.balance,
    asOf: now.toISOString(),
    lots: x.lots.map((l) => ({ ...l, type: memberOf(LEDGER_TYPES, l.type) })),
    lotsCount: x.sums.lots,
    lotsTruncated: x.sums.lots > x.lots.length,
    unlistedPoints: Number(x.sums.points) - listedPoints,
    pending: { points: x.pending.reduce((s, p) => s + p.points, 0), items: x.pending },
    expiring: {
      within30Days: Number(x.sums.d30),
      within60Days: Number(x.sums.d60),
      within90Days: Number(x.sums.d90),
    },
    expiringByMonth: Array.from({ length: EXPIRY_CHART_MONTHS }, (_, i) => {
      const month = monthOf(now, i);
      return { month, points: byMonth.get(month) ?? 0 };
    }),
    tier: {
      current: ref(state.currentTierId),
      status: state.tierStatus,
      projected: ref(projected),
      next: progress.next ? ref(progress.next.id) : null,
      pointsToNext: progress.remaining,
      points: state.currentTierPoints,
      periodStart: start.toISOString(),
      periodEnd: end?.toISOString() ?? null,
      earned: total("earned"),
      reversed: total("reversed"),
      notCounted: x.kinds
        .filter((k) => k.class === "other")
        .map((k) => ({ type: memberOf(LEDGER_TYPES, k.type), points: Number(k.points), entries: k.entries })),
    },
  } satisfies BalanceExplained;
}
