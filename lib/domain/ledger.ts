import "server-only";
import type { Tx } from "@/lib/db/types";
import { balanceLimit, insufficientBalance } from "@/lib/errors";
import { ledgerEntryJson } from "./sql";
import { applyTierEarn } from "./tiers-engine";
import type { LedgerSource, LedgerType } from "./vocabulary";

/**
 * The one place a balance changes. Every change is a conditional atomic UPDATE of the balance (which also
 * takes the customer's row lock) plus an immutable ledger entry in the same statement, so
 * balance = sum of entries ≥ 0 holds at every commit, whatever the entry point or interleaving.
 */

/** Postgres int4: balances and points stay below it. */
export const MAX_BALANCE = 2_147_483_647;

export interface BalanceChange {
  programId: string;
  customerId: string;
  /** Signed and non-zero. */
  points: number;
  type: LedgerType;
  source: LedgerSource;
  /** Who: `api_key:<id>`, `staff:<id>`, `customer:<id>` or `system`. */
  actor: string;
  reason?: string | null;
  metadata?: Record<string, unknown> | null;
  idempotencyKey?: string | null;
  earningFlowId?: string | null;
  /** The clock, for jobs and tests that replay time; the database's now() when absent. */
  now?: Date;
}

/** Points earned (not adjusted or spent) count towards tiers. */
const countsForTier = (c: BalanceChange) => c.type === "earn" && c.points > 0;

export interface BalanceResult {
  balance: number;
  /** The ledger entry as JSON text (API.md §4 shape). */
  entryJson: string;
  entryId: string;
}

export const CHANGE_SQL = `
WITH upd AS (
  UPDATE "LoyaltyData" SET balance = balance + $3, "updatedAt" = now()
  WHERE "customerId" = $2::uuid AND balance::bigint + $3 BETWEEN 0 AND ${MAX_BALANCE}
  RETURNING balance
), program AS (
  SELECT "pointsExpiryMonths" AS months FROM "Program" WHERE id = $1::uuid
), e AS (
  INSERT INTO "LedgerEntry" ("programId", "customerId", type, points, "balanceAfter", reason, source, actor,
                             "idempotencyKey", metadata, "earningFlowId", "createdAt", "expiresAt")
  SELECT $1::uuid, $2::uuid, $4, $3, upd.balance, $5, $6, $7, $8, $9::jsonb, $10::uuid, clock.at,
         CASE WHEN $3 > 0 AND program.months IS NOT NULL THEN clock.at + make_interval(months => program.months) END
  FROM upd CROSS JOIN program CROSS JOIN (SELECT coalesce($11::timestamptz, now()) AS at) clock
  RETURNING *
), lot AS (
  INSERT INTO "PointLot" ("customerId", "ledgerEntryId", remaining, "createdAt", "expiresAt")
  SELECT e."customerId", e.id, e.points, e."createdAt", e."expiresAt" FROM e WHERE e.points > 0
  RETURNING 1
), event AS (
  INSERT INTO "Event" ("programId", type, data)
  SELECT e."programId", 'balance.changed',
         jsonb_build_object('customerId', e."customerId", 'transactionId', e.id, 'type', e.type, 'points', e.points, 'balance', e."balanceAfter")
  FROM e
  RETURNING 1
)
SELECT e.id, e."balanceAfter" AS balance, ${ledgerEntryJson("e")}::text AS entry, (SELECT count(*) FROM lot)::int AS lots, (SELECT count(*) FROM event)::int AS events FROM e`;

/**
 * Spends `$2` points from the customer's oldest lots. Runs as its own statement after the balance UPDATE
 * took the row lock, so it sees every earlier committed spend (READ COMMITTED takes a snapshot per statement).
 */
const CONSUME_LOTS_SQL = `
WITH lots AS (
  SELECT id, remaining,
         sum(remaining) OVER (ORDER BY coalesce("expiresAt", 'infinity'::timestamptz), "createdAt", id) AS running
  FROM "PointLot" WHERE "customerId" = $1::uuid AND remaining > 0
), take AS (
  SELECT id, LEAST(remaining, $2 - (running - remaining)) AS used FROM lots WHERE running - remaining < $2
)
UPDATE "PointLot" l SET remaining = l.remaining - take.used FROM take WHERE l.id = take.id
RETURNING take.used`;

async function writeEntry(tx: Tx, change: BalanceChange): Promise<BalanceResult> {
  if (!Number.isInteger(change.points) || change.points === 0) throw new Error("points must be a non-zero integer");
  const rows = await tx.$queryRawUnsafe<{ id: string; balance: number; entry: string }[]>(
    CHANGE_SQL,
    change.programId,
    change.customerId,
    change.points,
    change.type,
    change.reason ?? null,
    change.source,
    change.actor,
    change.idempotencyKey ?? null,
    change.metadata == null ? null : JSON.stringify(change.metadata),
    change.earningFlowId ?? null,
    change.now?.toISOString() ?? null,
  );
  const row = rows[0];
  if (!row) {
    if (change.points < 0) {
      throw insufficientBalance();
    }
    throw balanceLimit(MAX_BALANCE);
  }
  return { balance: Number(row.balance), entryJson: row.entry, entryId: row.id };
}

export async function changeBalance(tx: Tx, change: BalanceChange): Promise<BalanceResult> {
  // A spend never draws on points that have expired, even when the expiry job has not run yet.
  if (change.points < 0) await expireDueLots(tx, change.programId, change.customerId, change.now);
  const result = await writeEntry(tx, change);
  if (change.points < 0) {
    const used = await tx.$queryRawUnsafe<{ used: number }[]>(CONSUME_LOTS_SQL, change.customerId, -change.points);
    const total = used.reduce((s, u) => s + Number(u.used), 0);
    if (total !== -change.points) throw new Error(`lot invariant broken for customer ${change.customerId}`);
  }
  if (countsForTier(change)) await applyTierEarn(tx, change.programId, change.customerId, change.points, change.now);
  return result;
}

/**
 * Turns the customer's lots that expired by `now` into one `expire` entry and returns the points expired.
 * Called before every spend and by the expiry job.
 */
export async function expireDueLots(tx: Tx, programId: string, customerId: string, now = new Date()): Promise<number> {
  const dueSql = `"customerId" = $1::uuid AND remaining > 0 AND "expiresAt" <= $2::timestamptz`;
  const due = await tx.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM "PointLot" WHERE ${dueSql}`,
    customerId,
    now.toISOString(),
  );
  if (!due[0]?.n) return 0;
  // Take the balance lock first (the order every balance change uses), then zero the lots under it.
  await tx.$queryRawUnsafe(`SELECT 1 FROM "LoyaltyData" WHERE "customerId" = $1::uuid FOR UPDATE`, customerId);
  const [expired] = await tx.$queryRawUnsafe<{ points: number }[]>(
    `WITH due AS (SELECT id, remaining FROM "PointLot" WHERE ${dueSql}),
          upd AS (UPDATE "PointLot" l SET remaining = 0 FROM due WHERE l.id = due.id RETURNING due.remaining)
     SELECT coalesce(sum(remaining), 0)::int AS points FROM upd`,
    customerId,
    now.toISOString(),
  );
  const points = expired?.points ?? 0;
  if (points > 0) {
    await writeEntry(tx, {
      programId,
      customerId,
      points: -points,
      type: "expire",
      source: "system",
      actor: "system",
      reason: "points expired",
      now,
    });
  }
  return points;
}
