import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Db, Tx } from "@/lib/db/types";
import { query, sql } from "@/lib/db/sql";
import { emitEvent } from "./events";
import { sweepNow } from "./clock";
import { applyEarn, periodEnded, recalculate, reverseEarn, type TierState } from "./tier-rules";
import { rankedTiers, tiersColumn, type RankedTier } from "./tier-ranking";
import { memberOf, TIER_STATUSES } from "./vocabulary";

/**
 * Applies the pure tier rules (tier-rules.ts) to the database: the period close and a reversed earn. Callers hold
 * the customer's LoyaltyData row lock (every balance change takes it first), so reading, deciding in TypeScript and
 * writing is safe here. The earn rule (`applyEarn`) runs inside the balance change's statement, in its SQL twin
 * (ledger.ts `tierCtes`).
 */

export interface LoadedTierState {
  state: TierState;
  /** The program's tiers, lowest first. */
  tiers: RankedTier[];
  periodMonths: number;
}

/** A customer's tier state with what the tier rules need besides it, in one round trip; null without a tier row. */
export async function loadTierState(db: Db, programId: string, customerId: string): Promise<LoadedTierState | null> {
  // The state's columns as stored: tierStatus is text, read back through its vocabulary below.
  const rows = await db.$queryRawUnsafe<
    (Omit<TierState, "tierStatus"> & { tierStatus: string; periodMonths: number; tiers: RankedTier[] | string })[]
  >(
    `SELECT ct."currentTierId", ct."carryTierId", ct."currentTierPoints", ct."carryTierPoints", ct."tierChangedAt",
            ct."recalculationDate", l."tierStatus", p."tierPeriodMonths" AS "periodMonths", ${tiersColumn("p.id")} AS tiers
     FROM "CustomerTier" ct JOIN "LoyaltyData" l ON l."programId" = ct."programId" AND l."customerId" = ct."customerId"
       JOIN "Program" p ON p.id = ct."programId"
     WHERE ct."programId" = $1::uuid AND ct."customerId" = $2::uuid`,
    programId,
    customerId,
  );
  const r = rows[0];
  if (!r) return null;
  const date = (d: Date | string | null) => (d === null ? null : new Date(d));
  return {
    state: {
      currentTierId: r.currentTierId,
      carryTierId: r.carryTierId,
      currentTierPoints: r.currentTierPoints,
      carryTierPoints: r.carryTierPoints,
      tierChangedAt: date(r.tierChangedAt),
      recalculationDate: date(r.recalculationDate),
      tierStatus: memberOf(TIER_STATUSES, r.tierStatus),
    },
    tiers: rankedTiers(r.tiers),
    periodMonths: r.periodMonths,
  };
}

async function save(tx: Tx, programId: string, customerId: string, before: TierState, after: TierState, at: Date) {
  await tx.customerTier.update({
    where: { customerId, programId },
    data: {
      currentTierId: after.currentTierId,
      carryTierId: after.carryTierId,
      currentTierPoints: after.currentTierPoints,
      carryTierPoints: after.carryTierPoints,
      tierChangedAt: after.tierChangedAt,
      recalculationDate: after.recalculationDate,
    },
  });
  if (after.tierStatus !== before.tierStatus) {
    await tx.loyaltyData.update({
      where: { customerId, programId },
      data: { tierStatus: after.tierStatus, updatedAt: at },
    });
  }
  if (after.currentTierId !== before.currentTierId) {
    await emitEvent(
      tx,
      programId,
      "tier.changed",
      {
        customerId,
        fromTierId: before.currentTierId,
        toTierId: after.currentTierId,
        tierStatus: after.tierStatus,
      },
      at,
    );
  }
}

/**
 * Closes the customer's period if it has ended (the scheduled job may not have reached it yet); answers the state
 * before and after the close, or null when no period had ended.
 */
export async function recalculateIfDue(
  tx: Tx,
  programId: string,
  customerId: string,
  now: Date,
): Promise<{ before: TierState; after: TierState } | null> {
  const loaded = await loadTierState(tx, programId, customerId);
  if (!loaded || !periodEnded(loaded.state, now)) return null;
  return { before: loaded.state, after: await saveRecalculated(tx, programId, customerId, loaded, now) };
}

/** Saves the customer's tier state after the period close of API.md §4 at `now`, and answers it. */
async function saveRecalculated(tx: Tx, programId: string, customerId: string, loaded: LoadedTierState, now: Date) {
  const closed = recalculate(loaded.state, loaded.tiers, loaded.periodMonths, now);
  await save(tx, programId, customerId, loaded.state, closed, now);
  return closed;
}

/**
 * Adds an earn's tier points outside a balance change (tier-rules.ts `applyEarn`): pending points whose tier points
 * count at the earn (pending-write.ts). The caller holds the balance row lock and closed any ended period.
 */
export async function applyEarnTierPoints(tx: Tx, programId: string, customerId: string, points: number, now: Date) {
  const loaded = await loadTierState(tx, programId, customerId);
  if (!loaded) return;
  await save(tx, programId, customerId, loaded.state, applyEarn(loaded.state, loaded.tiers, points, now), now);
}

/**
 * Lowers the customer's tier points for a reversed earn (tier-rules.ts `reverseEarn`) after closing any period that
 * has ended by `now`. Returns the tier points removed.
 */
export async function reverseEarnTierPoints(
  tx: Tx,
  programId: string,
  customerId: string,
  earn: { createdAt: Date; points: number },
  now: Date,
): Promise<number> {
  const loaded = await loadTierState(tx, programId, customerId);
  if (!loaded) return 0;
  const before = periodEnded(loaded.state, now)
    ? await saveRecalculated(tx, programId, customerId, loaded, now)
    : loaded.state;
  const { state, removed } = reverseEarn(before, loaded.tiers, loaded.periodMonths, earn.createdAt, earn.points);
  if (removed <= 0) return 0;
  await tx.$executeRawUnsafe(
    `UPDATE "CustomerTier" SET "currentTierPoints" = $3, "carryTierPoints" = $4
     WHERE "programId" = $1::uuid AND "customerId" = $2::uuid`,
    programId,
    customerId,
    state.currentTierPoints,
    state.carryTierPoints,
  );
  if (state.tierStatus !== before.tierStatus)
    await tx.$executeRawUnsafe(
      `UPDATE "LoyaltyData" SET "tierStatus" = $3 WHERE "programId" = $1::uuid AND "customerId" = $2::uuid`,
      programId,
      customerId,
      state.tierStatus,
    );
  return removed;
}

/**
 * Recalculates every customer whose recalculationDate has passed, in batches: of one program, or of every live
 * program (the scheduler's sweep on real time; a test program's periods close when its clock is advanced). Rows are claimed with
 * FOR UPDATE SKIP LOCKED on the balance row (the lock order of every balance change), so several app
 * instances can run this at once without doing a customer twice or waiting on each other.
 */
export async function recalculateDueTiers(
  prisma: PrismaClient,
  options: { programId?: string; now?: Date; batchSize?: number } = {},
): Promise<{ recalculated: number }> {
  const now = options.now ?? sweepNow(options.programId);
  const batchSize = options.batchSize ?? 500;
  let recalculated = 0;
  for (;;) {
    const done = await prisma.$transaction(
      async (tx) => {
        const programId = options.programId ?? null;
        const due = await query<{ customerId: string; programId: string }>(
          tx,
          sql`SELECT l."customerId", l."programId" FROM "LoyaltyData" l
             JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"
             JOIN "Customer" c ON c.id = l."customerId"
           WHERE ct."recalculationDate" <= ${now.toISOString()}::timestamptz AND c."deletedAt" IS NULL
             AND (${programId}::uuid IS NULL OR l."programId" = ${programId}::uuid)
             AND (${programId}::uuid IS NOT NULL OR l."programId" IN (SELECT id FROM "Program" WHERE NOT test))
           LIMIT ${batchSize}::int FOR UPDATE OF l SKIP LOCKED`,
        );
        for (const { customerId, programId } of due) {
          const loaded = await loadTierState(tx, programId, customerId);
          if (loaded) await saveRecalculated(tx, programId, customerId, loaded, now);
        }
        return due.length;
      },
      { timeout: 120_000 },
    );
    recalculated += done;
    if (done < batchSize) return { recalculated };
  }
}
