import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Db, Tx } from "@/lib/db/types";
import { execute, query, raw, sql } from "@/lib/db/sql";
import { orderNotFound } from "@/lib/errors";
import { lockBalance } from "./balance-lock";
import { releaseCampaignPoints } from "./campaigns/release";
import { sweepNow } from "./clock";
import { emitEvent } from "./events";
import { changeBalance } from "./ledger";
import { pendingJsonSql } from "./pending-write";
import { reverseEarnTierPoints } from "./tiers-engine";
import type { LedgerSource } from "./vocabulary";

/**
 * Pending points after they were written (pending-rules.ts decides, pending-write.ts writes): maturing (by time, in
 * a test program's clock advance and the scheduled sweep, or by the order's confirmation), cancelling (a refund of
 * the order before they matured) and reading them. A matured row becomes ONE ordinary `earn` ledger entry through
 * the ledger's locked path (`changeBalance`: the lot, its expiry counted from the maturity, tier points unless they
 * counted at the earn, `balance.changed`), with `metadata.pendingId`; a cancelled one never touches the balance.
 * Lock order: the customer's balance row (as every balance change), then the PendingPoints row (claimed by a
 * conditional UPDATE), so a maturity and a refund's cancel of the same row serialise without a deadlock.
 */

interface PendingRow {
  id: string;
  programId: string;
  customerId: string;
  points: number;
  type: string;
  reason: string | null;
  source: LedgerSource;
  actor: string;
  metadata: Record<string, unknown> | null;
  earningFlowId: string | null;
  orderId: string | null;
  createdAt: Date | string;
  tierCounted: boolean;
}

const COLUMNS = raw(`x.id::text AS id, x."programId"::text AS "programId", x."customerId"::text AS "customerId",
  x.points, x.type, x.reason, x.source, x.actor, x.metadata, x."earningFlowId"::text AS "earningFlowId", x."orderId",
  x."createdAt", x."tierCounted"`);

/** Claims one pending row (once: a concurrent maturity or cancel finds it settled) and matures it at `now`. */
async function mature(
  tx: Tx,
  programId: string,
  pending: { id: string; customerId: string },
  now: Date,
  confirmed: boolean,
): Promise<number> {
  const { id } = pending;
  await lockBalance(tx, programId, pending.customerId);
  const [row] = await query<PendingRow>(
    tx,
    sql`UPDATE "PendingPoints" x SET status = 'matured', "settledAt" = ${now.toISOString()}::timestamptz
        WHERE x.id = ${id}::uuid AND x."programId" = ${programId}::uuid AND x.status = 'pending'
        RETURNING ${COLUMNS}`,
  );
  if (!row) return 0;
  const entry = await changeBalance(tx, {
    programId,
    customerId: row.customerId,
    points: row.points,
    type: "earn",
    source: row.source,
    actor: row.actor,
    reason: row.reason,
    metadata: { ...(row.metadata ?? {}), pendingId: row.id },
    earningFlowId: row.earningFlowId,
    orderId: row.orderId,
    tierCounted: row.tierCounted,
    now,
  });
  await execute(tx, sql`UPDATE "PendingPoints" SET "ledgerEntryId" = ${entry.entryId}::uuid WHERE id = ${id}::uuid`);
  await emitEvent(
    tx,
    programId,
    "points.matured",
    {
      customerId: row.customerId,
      pendingId: row.id,
      points: row.points,
      orderId: row.orderId,
      transactionId: entry.entryId,
      confirmed,
    },
    now,
  );
  return row.points;
}

/**
 * Matures the program's pending points due by `now` (maturesAt ≤ now), oldest first, in the caller's transaction:
 * a test program's clock advance (each due instant is a step of its own) and the scheduled sweep. Answers the
 * customers and points matured.
 */
export async function matureDuePending(
  tx: Tx,
  programId: string,
  now: Date,
): Promise<{ customerId: string; points: number }[]> {
  const due = await query<{ id: string; customerId: string }>(
    tx,
    sql`SELECT x.id::text AS id, x."customerId"::text AS "customerId" FROM "PendingPoints" x
        JOIN "Customer" c ON c.id = x."customerId" AND c."deletedAt" IS NULL
        WHERE x."programId" = ${programId}::uuid AND x.status = 'pending' AND x."maturesAt" <= ${now.toISOString()}::timestamptz
        ORDER BY x."maturesAt", x.id`,
  );
  const out: { customerId: string; points: number }[] = [];
  for (const d of due) {
    const points = await mature(tx, programId, d, now, false);
    if (points > 0) out.push({ customerId: d.customerId, points });
  }
  return out;
}

/** The scheduler's sweep over live programs (real time), one transaction per program. */
export async function matureDuePendingEverywhere(prisma: PrismaClient): Promise<number> {
  const programs = await query<{ programId: string }>(
    prisma,
    sql`SELECT DISTINCT x."programId"::text AS "programId" FROM "PendingPoints" x JOIN "Program" p ON p.id = x."programId"
        WHERE NOT p.test AND x.status = 'pending' AND x."maturesAt" IS NOT NULL`,
  );
  let points = 0;
  for (const { programId } of programs) {
    const now = sweepNow(programId);
    const matured = await prisma.$transaction((tx) => matureDuePending(tx, programId, now), { timeout: 120_000 });
    points += matured.reduce((sum, m) => sum + m.points, 0);
  }
  return points;
}

/** The pending points of an order as JSON text, oldest first. */
const orderPendingJson = async (db: Db, programId: string, orderId: string): Promise<string[]> =>
  (
    await query<{ json: string }>(
      db,
      sql`SELECT ${raw(pendingJsonSql("x"))}::text AS json FROM "PendingPoints" x
          WHERE x."programId" = ${programId}::uuid AND x."orderId" = ${orderId}::text ORDER BY x."createdAt", x.id`,
    )
  ).map((r) => r.json);

/**
 * `POST …/orders/{orderId}/confirm` (delivery confirmed): every pending row of the order matures now, whatever its
 * maturesAt. Idempotent by nature: a second confirm finds nothing pending and answers the same rows. An order the
 * program knows nothing of (no pending points, no entries): 404 `order_not_found`.
 */
export async function confirmOrder(tx: Tx, input: { programId: string; orderId: string; now: Date }) {
  const { programId, orderId, now } = input;
  const rows = await query<{ id: string; customerId: string }>(
    tx,
    sql`SELECT x.id::text AS id, x."customerId"::text AS "customerId" FROM "PendingPoints" x
        WHERE x."programId" = ${programId}::uuid AND x."orderId" = ${orderId}::text AND x.status = 'pending'
        ORDER BY x."createdAt", x.id`,
  );
  let matured = 0;
  for (const row of rows) matured += await mature(tx, programId, row, now, true);
  const pending = await orderPendingJson(tx, programId, orderId);
  if (pending.length === 0) {
    const [known] = await query<{ one: number }>(
      tx,
      sql`SELECT 1 AS one FROM "LedgerEntry" WHERE "programId" = ${programId}::uuid AND "orderId" = ${orderId}::text LIMIT 1`,
    );
    if (!known) throw orderNotFound();
  }
  return { orderId, pointsMatured: matured, pending };
}

/** The order's pending rows as refund entries (refunds.ts `planRefund`): original points and the part cancelled. */
export async function orderPendingEntries(tx: Tx, programId: string, orderId: string) {
  return query<{ id: string; customerId: string; points: number; reversed: number }>(
    tx,
    sql`SELECT x.id::text AS id, x."customerId"::text AS "customerId",
               (x.points + coalesce(s.cancelled, 0))::int AS points, coalesce(s.cancelled, 0)::int AS reversed
        FROM "PendingPoints" x
        LEFT JOIN LATERAL (SELECT sum(c.points) AS cancelled FROM "PendingPoints" c
                           WHERE c."programId" = x."programId" AND c."splitFromId" = x.id) s ON true
        WHERE x."programId" = ${programId}::uuid AND x."orderId" = ${orderId}::text AND x.status = 'pending'
        ORDER BY x."createdAt", x.id`,
  );
}

/**
 * Cancels `points` of a pending row (a refund of its order, before it matured), under the customer's balance row
 * lock the caller holds: all of it (status `cancelled`), or part of it, split off as a `cancelled` row of its own
 * (`splitFromId`) while the row keeps the rest. The balance is not touched; tier points counted at the earn are
 * taken back as a reversed earn's are (tier-rules.ts `reverseEarn`); a campaign's pending points go back to its
 * budget, and the customer's use of it in its window once nothing of the row is left, by the rule a reversal of the
 * campaign's entry follows (campaigns/release.ts). Answers the points cancelled.
 */
export async function cancelPending(tx: Tx, programId: string, id: string, points: number, now: Date) {
  const iso = now.toISOString();
  const [row] = await query<PendingRow>(
    tx,
    sql`SELECT ${COLUMNS} FROM "PendingPoints" x
        WHERE x.id = ${id}::uuid AND x."programId" = ${programId}::uuid AND x.status = 'pending' FOR UPDATE`,
  );
  if (!row || points <= 0) return 0;
  const cancelled = Math.min(points, row.points);
  if (cancelled === row.points) {
    await execute(
      tx,
      sql`UPDATE "PendingPoints" SET status = 'cancelled', "settledAt" = ${iso}::timestamptz WHERE id = ${id}::uuid`,
    );
  } else {
    await execute(
      tx,
      sql`WITH cut AS (UPDATE "PendingPoints" SET points = points - ${cancelled}::int WHERE id = ${id}::uuid RETURNING *)
          INSERT INTO "PendingPoints" ("programId", "customerId", points, type, reason, source, actor, metadata,
                                       "earningFlowId", "orderId", "createdAt", "maturesAt", status, "settledAt",
                                       "tierCounted", "splitFromId")
          SELECT "programId", "customerId", ${cancelled}::int, type, reason, source, actor, metadata, "earningFlowId",
                 "orderId", "createdAt", "maturesAt", 'cancelled', ${iso}::timestamptz, "tierCounted", id FROM cut`,
    );
  }
  await releaseCampaignPoints(tx, {
    programId,
    customerId: row.customerId,
    metadata: row.metadata,
    taken: cancelled,
    leftAfter: row.points - cancelled,
  });
  if (row.tierCounted)
    await reverseEarnTierPoints(
      tx,
      programId,
      row.customerId,
      { createdAt: new Date(row.createdAt), points: cancelled },
      now,
    );
  return cancelled;
}

/**
 * The customer's pending points (status `pending`), soonest to mature first (until-confirmed last), as JSON text of
 * an array: the customer read's `pendingPoints` and the balance explanation's.
 */
export const customerPendingSql = (customerId: string) =>
  sql`SELECT coalesce(json_agg(${raw(pendingJsonSql("x"))} ORDER BY x."maturesAt" NULLS LAST, x."createdAt", x.id), '[]')::text
      FROM "PendingPoints" x WHERE x."customerId" = ${customerId}::uuid AND x.status = 'pending'`;
