import "server-only";
import type { Tx } from "@/lib/db/types";
import { orderNotFound, validationFailed } from "@/lib/errors";
import { lockBalance } from "./balance-lock";
import { programNow } from "./clock";
import { emitEvents } from "./events";
import { leftToReverse, reverseEntry } from "./reversals";
import { cancelPending, orderPendingEntries } from "./pending";
import type { LedgerSource } from "./vocabulary";

/**
 * Order refunds: an integrator refunds (part of) an order and the points the order earned are reversed in proportion,
 * each through the one reversal of a ledger entry (reversals.ts `reverseEntry`, whose policy applies to every entry).
 */

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
  /** Pending points of the order cancelled by this refund (never in the balance, so nothing reversed). */
  pendingCancelled: number;
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
  const now = input.now ?? programNow(programId);
  await tx.$queryRawUnsafe(
    `SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2::text, 0))) l`,
    programId,
    orderId,
  );
  // The order's earn entries and its pending points (pending.ts): points not matured yet are cancelled, not
  // reversed, and never touch the spendable balance.
  const orderItems = async () => [
    ...(await orderEntries(tx, programId, orderId)).map((e) => ({ ...e, pending: false })),
    ...(await orderPendingEntries(tx, programId, orderId)).map((e) => ({ ...e, pending: true })),
  ];
  let entries = await orderItems();
  if (entries.length === 0) throw orderNotFound();
  for (const customerId of [...new Set(entries.map((e) => e.customerId))].sort())
    await lockBalance(tx, programId, customerId);
  entries = await orderItems(); // as of the locks

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
  let pendingCancelled = 0;
  for (const { entry, points } of plan) {
    if (entry.pending) {
      pendingCancelled += await cancelPending(tx, programId, entry.id, points, now);
      continue;
    }
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
  const totalReversed = entries.filter((e) => !e.pending).reduce((sum, e) => sum + e.reversed, 0) + pointsReversed;
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
          pendingCancelled,
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
    pendingCancelled,
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
