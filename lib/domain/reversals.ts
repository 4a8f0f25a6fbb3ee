import "server-only";
import type { Tx } from "@/lib/db/types";
import {
  orderNotFound,
  reversalExceedsOriginal,
  transactionNotFound,
  transactionNotReversible,
  validationFailed,
} from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { changeBalance, expireDueLots, MAX_BALANCE } from "./ledger";
import { lockBalance } from "./balance-lock";
import { emitEvents } from "./events";
import { programClock } from "./clock";
import { ledgerEntryJson } from "./sql";
import { addMonths, sortTiers, tierForPoints, type TierDef } from "./tier-rules";
import { recalculateIfDue } from "./tiers-engine";
import type { LedgerSource } from "./vocabulary";

/**
 * Reversals and order refunds: the ONE domain function that undoes a ledger entry (`reverseEntry`), called by the
 * API, the dashboard, the CLI and `refundOrder`. Always on the locked path (ledger.ts `changeBalance` in the caller's
 * transaction, after the customer's row lock): corrections are rare, correctness first.
 *
 * Policy (README "Reversals and refunds"):
 * - Reversible: positive `earn` and `adjust` entries (points come off the balance), and `spend` and negative
 *   `adjust` entries (the points come back as a new lot). Redemptions are cancelled, not reversed; expiries,
 *   reversals and redemptions are refused with `transaction_not_reversible`.
 * - Partial reversals add up: the points REQUESTED over all reversals of an entry never exceed its points; each
 *   reversal entry stores `requested` and `unrecovered` in its metadata, so the cap is exact even when spent points
 *   could not be taken back.
 * - Points already spent: the reversal takes what the balance allows (the entry's own lot first, then the oldest
 *   lots), never below zero, and reports the rest as `unrecovered`. When nothing can be taken, a 0-point `reversal`
 *   entry still records it (balance = Σ entries = Σ lots holds: it adds and consumes nothing).
 * - Tier points: reversing an `earn` lowers the tier points of the period it counted in by the points REQUESTED
 *   (an order refunded after its points were spent must not keep its tier): the current period's
 *   `currentTierPoints`, the previous period's `carryTierPoints` (the carried tier itself stays until the next
 *   recalculation, API.md §4), nothing for older periods; never below 0. The tier changes only at recalculation.
 */

export interface ReverseInput {
  programId: string;
  customerId: string;
  transactionId: string;
  /** Points to reverse (positive); absent: everything left to reverse of the entry. */
  points?: number | null;
  reason: string;
  source: LedgerSource;
  actor: string;
  idempotencyKey?: string | null;
  now?: Date;
}

export interface ReversalOutcome {
  balance: number;
  /** The reversal ledger entry as JSON text (API.md §4 shape). */
  entryJson: string;
  entryId: string;
  /** Points requested. */
  requested: number;
  /** Points of the request that could not be taken back (already spent). */
  unrecovered: number;
  /** Tier points removed from the period the entry counted in. */
  tierPoints: number;
  customerId: string;
  orderId: string | null;
}

interface Original {
  id: string;
  type: string;
  points: number;
  createdAt: Date;
  orderId: string | null;
  reversed: number;
}

/** The entry and what was already requested of it, for this program and customer (another's: 404). */
export async function loadOriginal(tx: Tx, programId: string, customerId: string, transactionId: string) {
  if (!isUuid(transactionId)) throw transactionNotFound();
  const rows = await tx.$queryRawUnsafe<Original[]>(
    `SELECT e.id::text AS id, e.type, e.points, e."createdAt", e."orderId",
            (SELECT coalesce(sum((r.metadata->>'requested')::int), 0)::int FROM "LedgerEntry" r
              WHERE r."programId" = e."programId" AND r."reversesId" = e.id) AS reversed
     FROM "LedgerEntry" e WHERE e.id = $1::uuid AND e."programId" = $2::uuid AND e."customerId" = $3::uuid`,
    transactionId,
    programId,
    customerId,
  );
  const original = rows[0];
  if (!original) throw transactionNotFound();
  return original;
}

const REVERSIBLE = (o: Original) =>
  (o.points > 0 && (o.type === "earn" || o.type === "adjust")) ||
  (o.points < 0 && (o.type === "spend" || o.type === "adjust"));

/** What is left to reverse of an entry (the cap). */
export const leftToReverse = (o: { points: number; reversed: number }) => Math.max(0, Math.abs(o.points) - o.reversed);

/**
 * Reverses (part of) a ledger entry in the caller's transaction: see the policy above. Takes the customer's row lock
 * first (the lock order of every balance change).
 */
export async function reverseEntry(tx: Tx, input: ReverseInput): Promise<ReversalOutcome> {
  const { programId, customerId } = input;
  const now = input.now ?? programClock(programId).now();
  await lockBalance(tx, programId, customerId);
  const original = await loadOriginal(tx, programId, customerId, input.transactionId);
  if (!REVERSIBLE(original)) throw transactionNotReversible(original.type);
  const left = leftToReverse(original);
  const requested = input.points ?? left;
  if (requested > left || requested <= 0) throw reversalExceedsOriginal(left);

  // Expired points are gone before a reversal takes any (as before every spend); then the balance bounds it.
  if (original.points > 0) await expireDueLots(tx, programId, customerId, now);
  const [state] = await tx.$queryRawUnsafe<{ balance: number }[]>(
    `SELECT balance FROM "LoyaltyData" WHERE "programId" = $1::uuid AND "customerId" = $2::uuid`,
    programId,
    customerId,
  );
  const balance = state?.balance ?? 0;
  const taken = original.points > 0 ? Math.min(requested, balance) : Math.min(requested, MAX_BALANCE - balance);
  const unrecovered = requested - taken;
  const metadata = { requested, unrecovered };
  const change = {
    programId,
    customerId,
    type: "reversal" as const,
    reason: input.reason,
    source: input.source,
    actor: input.actor,
    metadata,
    idempotencyKey: input.idempotencyKey ?? null,
    orderId: original.orderId,
    reversesId: original.id,
    now,
  };
  const result =
    taken > 0
      ? await changeBalance(tx, { ...change, points: original.points > 0 ? -taken : taken })
      : await recordNothingTaken(tx, change, balance);

  const tierPoints =
    original.type === "earn" ? await lowerTierPoints(tx, programId, customerId, original, requested, now) : 0;
  await emitEvents(
    tx,
    programId,
    [
      {
        type: "transaction.reversed",
        data: {
          customerId,
          transactionId: result.entryId,
          reversesId: original.id,
          orderId: original.orderId,
          requested,
          points: taken,
          unrecovered,
          tierPoints,
          balance: result.balance,
        },
      },
    ],
    now,
  );
  return { ...result, requested, unrecovered, tierPoints, customerId, orderId: original.orderId };
}

/** A reversal that could take nothing back: a 0-point entry (no lot, balance unchanged), so the cap and tiers see it. */
async function recordNothingTaken(
  tx: Tx,
  change: {
    programId: string;
    customerId: string;
    reason: string;
    source: string;
    actor: string;
    metadata: object;
    idempotencyKey: string | null;
    orderId: string | null;
    reversesId: string;
    now: Date;
  },
  balance: number,
) {
  const [row] = await tx.$queryRawUnsafe<{ id: string; entry: string }[]>(
    `WITH e AS (
       INSERT INTO "LedgerEntry" ("programId", "customerId", type, points, "balanceAfter", reason, source, actor,
                                  "idempotencyKey", metadata, "orderId", "reversesId", "createdAt")
       VALUES ($1::uuid, $2::uuid, 'reversal', 0, $3::int, $4, $5, $6, $7, $8::jsonb, $9, $10::uuid, $11::timestamptz)
       RETURNING *
     ), touch AS (
       -- The hot path reads lots and balance from one snapshot guarded by this row's version: bump it.
       UPDATE "LoyaltyData" SET "updatedAt" = $11::timestamptz WHERE "programId" = $1::uuid AND "customerId" = $2::uuid RETURNING 1
     )
     SELECT e.id::text AS id, ${ledgerEntryJson("e")}::text AS entry FROM e`,
    change.programId,
    change.customerId,
    balance,
    change.reason,
    change.source,
    change.actor,
    change.idempotencyKey,
    JSON.stringify(change.metadata),
    change.orderId,
    change.reversesId,
    change.now.toISOString(),
  );
  if (!row) throw new Error("reversal entry not written");
  return { balance, entryJson: row.entry, entryId: row.id };
}

/**
 * Lowers the tier points of the period the reversed earn counted in (see the policy above), under the row lock and
 * after closing any period that has ended. Returns the points removed.
 */
async function lowerTierPoints(
  tx: Tx,
  programId: string,
  customerId: string,
  original: Original,
  points: number,
  now: Date,
) {
  await recalculateIfDue(tx, programId, customerId, now);
  const [ct] = await tx.$queryRawUnsafe<
    { recalculationDate: Date | null; periodMonths: number; currentTierPoints: number; carryTierPoints: number }[]
  >(
    `SELECT ct."recalculationDate", p."tierPeriodMonths" AS "periodMonths", ct."currentTierPoints", ct."carryTierPoints"
     FROM "CustomerTier" ct JOIN "Program" p ON p.id = ct."programId"
     WHERE ct."programId" = $1::uuid AND ct."customerId" = $2::uuid`,
    programId,
    customerId,
  );
  if (!ct) return 0;
  const at = new Date(original.createdAt).getTime();
  const end = ct.recalculationDate ? new Date(ct.recalculationDate) : null;
  const start = end ? addMonths(end, -ct.periodMonths) : null;
  const column =
    !start || at >= start.getTime()
      ? "currentTierPoints"
      : at >= addMonths(start, -ct.periodMonths).getTime()
        ? "carryTierPoints"
        : null;
  if (!column) return 0;
  const removed = Math.min(points, ct[column]);
  if (removed <= 0) return 0;
  await tx.$executeRawUnsafe(
    `UPDATE "CustomerTier" SET "${column}" = "${column}" - $3 WHERE "programId" = $1::uuid AND "customerId" = $2::uuid`,
    programId,
    customerId,
    removed,
  );
  if (column === "currentTierPoints")
    await restateTierStatus(tx, programId, customerId, ct.currentTierPoints - removed);
  return removed;
}

/**
 * API.md §4: `earned` means the current tier was reached in this period. When a reversal takes the period's points
 * below it, the customer keeps the tier until recalculation, now as `carried` (still `base` on the lowest tier).
 */
async function restateTierStatus(tx: Tx, programId: string, customerId: string, periodPoints: number) {
  const [row] = await tx.$queryRawUnsafe<{ currentTierId: string | null; tiers: TierDef[] | string }[]>(
    `SELECT ct."currentTierId"::text AS "currentTierId",
            (SELECT coalesce(json_agg(json_build_object('id', t.id, 'requiredPoints', t."requiredPoints", 'factor', t.factor)), '[]')
               FROM "Tier" t WHERE t."programId" = ct."programId") AS tiers
     FROM "CustomerTier" ct WHERE ct."programId" = $1::uuid AND ct."customerId" = $2::uuid`,
    programId,
    customerId,
  );
  if (!row) return;
  const sorted = sortTiers(typeof row.tiers === "string" ? JSON.parse(row.tiers) : row.tiers);
  const rank = sorted.findIndex((t) => t.id === row.currentTierId);
  const reached = tierForPoints(sorted, periodPoints);
  const reachedRank = reached ? sorted.indexOf(reached) : -1;
  const status = rank <= 0 ? "base" : reachedRank >= rank ? "earned" : "carried";
  await tx.$executeRawUnsafe(
    `UPDATE "LoyaltyData" SET "tierStatus" = $3 WHERE "programId" = $1::uuid AND "customerId" = $2::uuid AND "tierStatus" <> $3`,
    programId,
    customerId,
    status,
  );
}

export interface RefundInput {
  programId: string;
  orderId: string;
  /** The refunded amount and the order's total, both or neither (neither: the whole order). */
  amount?: number | null;
  total?: number | null;
  reason: string;
  source: LedgerSource;
  actor: string;
  idempotencyKey?: string | null;
  now?: Date;
}

export interface RefundOutcome {
  refundId: string;
  orderId: string;
  /** The points the order earned, over all its entries. */
  orderPoints: number;
  /** The order's refunded share after this refund (Σ amount/total, at most 1). */
  refundedShare: number;
  /** Points reversed by this refund, and over all reversals of the order's entries. */
  pointsReversed: number;
  totalReversed: number;
  unrecovered: number;
  /** The reversal entries this refund wrote (JSON text each). */
  transactions: string[];
}

interface OrderEntry {
  id: string;
  customerId: string;
  points: number;
  reversed: number;
}

const orderEntries = (tx: Tx, programId: string, orderId: string) =>
  tx.$queryRawUnsafe<OrderEntry[]>(
    `SELECT e.id::text AS id, e."customerId"::text AS "customerId", e.points,
            (SELECT coalesce(sum((r.metadata->>'requested')::int), 0)::int FROM "LedgerEntry" r
              WHERE r."programId" = e."programId" AND r."reversesId" = e.id) AS reversed
     FROM "LedgerEntry" e
     WHERE e."programId" = $1::uuid AND e."orderId" = $2 AND e.type = 'earn' AND e.points > 0
     ORDER BY e."createdAt", e.id`,
    programId,
    orderId,
  );

/**
 * Refunds an order in the caller's transaction: the order's points reversed up to
 * target = floor(orderPoints × min(1, Σ refunded shares)), minus what is already reversed of its entries (by earlier
 * refunds or reversals), so refunding twice never reverses twice and partial refunds add up to at most the order.
 * Refunds of one order are serialised by a transaction lock on (program, order); the customers' rows are then locked
 * in id order.
 */
export async function refundOrder(tx: Tx, input: RefundInput): Promise<RefundOutcome> {
  const { programId, orderId } = input;
  if ((input.amount == null) !== (input.total == null))
    throw validationFailed([
      { path: input.amount == null ? "amount" : "total", message: "give amount and total together" },
    ]);
  const share = input.amount == null ? 1 : input.amount / input.total!;
  // One time for the whole refund: every reversal it makes and its own row.
  const now = input.now ?? programClock(programId).now();
  await tx.$queryRawUnsafe(
    `SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2::text, 0))) l`,
    programId,
    orderId,
  );
  let entries = await orderEntries(tx, programId, orderId);
  if (entries.length === 0) throw orderNotFound();
  for (const customerId of [...new Set(entries.map((e) => e.customerId))].sort())
    await lockBalance(tx, programId, customerId);
  entries = await orderEntries(tx, programId, orderId); // as of the locks

  const [before] = await tx.$queryRawUnsafe<{ share: number }[]>(
    `SELECT coalesce(sum(share), 0)::float8 AS share FROM "OrderRefund" WHERE "programId" = $1::uuid AND "orderId" = $2`,
    programId,
    orderId,
  );
  const refundedShare = Math.min(1, (before?.share ?? 0) + share);
  const plan = planRefund(entries, refundedShare);

  const transactions: string[] = [];
  let pointsReversed = 0;
  let unrecovered = 0;
  for (const { entry, points } of plan) {
    const outcome = await reverseEntry(tx, {
      programId,
      customerId: entry.customerId,
      transactionId: entry.id,
      points,
      reason: input.reason,
      source: input.source,
      actor: input.actor,
      idempotencyKey: input.idempotencyKey,
      now,
    });
    transactions.push(outcome.entryJson);
    pointsReversed += points;
    unrecovered += outcome.unrecovered;
  }
  const orderPoints = entries.reduce((sum, e) => sum + e.points, 0);
  const totalReversed = entries.reduce((sum, e) => sum + e.reversed, 0) + pointsReversed;
  const [refund] = await tx.$queryRawUnsafe<{ id: string }[]>(
    `INSERT INTO "OrderRefund" ("programId", "orderId", amount, total, share, "pointsReversed", unrecovered, reason, actor,
                                "idempotencyKey", "createdAt")
     VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::timestamptz) RETURNING id::text`,
    programId,
    orderId,
    input.amount ?? null,
    input.total ?? null,
    share,
    pointsReversed,
    unrecovered,
    input.reason,
    input.actor,
    input.idempotencyKey ?? null,
    now.toISOString(),
  );
  await emitEvents(
    tx,
    programId,
    [
      {
        type: "order.refunded",
        data: {
          orderId,
          refundId: refund!.id,
          amount: input.amount ?? null,
          total: input.total ?? null,
          refundedShare,
          orderPoints,
          pointsReversed,
          totalReversed,
          unrecovered,
          customerIds: [...new Set(plan.map((p) => p.entry.customerId))],
        },
      },
    ],
    now,
  );
  return {
    refundId: refund!.id,
    orderId,
    orderPoints,
    refundedShare,
    pointsReversed,
    totalReversed,
    unrecovered,
    transactions,
  };
}

/**
 * How many points to reverse of each entry so the order's reversed total reaches floor(orderPoints × share): each
 * entry first up to its own floor(points × share), then the rounding remainder on the entries with room left, in
 * order. Pure (the property suite checks it): never more than an entry has left, never past the target.
 */
export function planRefund<E extends { points: number; reversed: number }>(entries: E[], share: number) {
  const orderPoints = entries.reduce((sum, e) => sum + e.points, 0);
  const target = Math.floor(orderPoints * Math.min(1, share) + 1e-9);
  let due = target - entries.reduce((sum, e) => sum + e.reversed, 0);
  const take = entries.map((e) => {
    const own = Math.max(0, Math.min(leftToReverse(e), Math.floor(e.points * Math.min(1, share) + 1e-9) - e.reversed));
    return own;
  });
  let planned = take.reduce((a, b) => a + b, 0);
  if (planned > due) {
    // Earlier manual reversals already cover part of the target: trim from the end.
    for (let i = take.length - 1; i >= 0 && planned > Math.max(0, due); i--) {
      const cut = Math.min(take[i]!, planned - Math.max(0, due));
      take[i]! -= cut;
      planned -= cut;
    }
  }
  due -= planned;
  for (let i = 0; i < entries.length && due > 0; i++) {
    const room = leftToReverse(entries[i]!) - take[i]!;
    const more = Math.min(room, due);
    take[i]! += more;
    due -= more;
  }
  return entries.flatMap((entry, i) => (take[i]! > 0 ? [{ entry, points: take[i]! }] : []));
}
