import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Tx } from "@/lib/db/types";
import { emitEvent } from "./events";
import { sweepClock } from "./clock";
import { recalculate, type TierDef, type TierState } from "./tier-rules";
import { memberOf, TIER_STATUSES } from "./vocabulary";

/**
 * Applies the pure tier rules (tier-rules.ts) to the database: the period close. Callers hold the customer's
 * LoyaltyData row lock (every balance change takes it first), so reading, deciding in TypeScript and writing is safe
 * here. The earn rule (`applyEarn`) runs inside the balance change's statement, in SQL (ledger.ts `changeCtes`).
 */

interface Loaded {
  state: TierState;
  tiers: TierDef[];
  periodMonths: number;
}

async function load(tx: Tx, programId: string, customerId: string): Promise<Loaded | null> {
  // The state's columns as stored: tierStatus is text, read back through its vocabulary below.
  const rows = await tx.$queryRawUnsafe<
    (Omit<TierState, "tierStatus"> & { tierStatus: string; periodMonths: number; tiers: TierDef[] })[]
  >(
    `SELECT ct."currentTierId", ct."carryTierId", ct."currentTierPoints", ct."carryTierPoints", ct."tierChangedAt",
            ct."recalculationDate", l."tierStatus", p."tierPeriodMonths" AS "periodMonths",
            (SELECT coalesce(json_agg(json_build_object('id', t.id, 'requiredPoints', t."requiredPoints", 'factor', t.factor)), '[]')
               FROM "Tier" t WHERE t."programId" = p.id) AS tiers
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
    tiers: typeof r.tiers === "string" ? JSON.parse(r.tiers) : r.tiers,
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
    await tx.loyaltyData.update({ where: { customerId, programId }, data: { tierStatus: after.tierStatus } });
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

/** Closes the customer's period if it has ended (the scheduled job may not have reached it yet). */
export async function recalculateIfDue(tx: Tx, programId: string, customerId: string, now: Date) {
  const loaded = await load(tx, programId, customerId);
  if (!loaded?.state.recalculationDate || loaded.state.recalculationDate.getTime() > now.getTime()) return;
  await saveRecalculated(tx, programId, customerId, loaded, now);
}

/** Saves the customer's tier state after the period close of API.md §4 at `now`. */
function saveRecalculated(tx: Tx, programId: string, customerId: string, loaded: Loaded, now: Date) {
  return save(
    tx,
    programId,
    customerId,
    loaded.state,
    recalculate(loaded.state, loaded.tiers, loaded.periodMonths, now),
    now,
  );
}

/**
 * Recalculates every customer whose recalculationDate has passed, in batches. Rows are claimed with
 * FOR UPDATE SKIP LOCKED on the balance row (the lock order of every balance change), so several app
 * instances can run this at once without doing a customer twice or waiting on each other.
 */
export async function recalculateDueTiers(
  prisma: PrismaClient,
  options: { programId?: string; now?: Date; batchSize?: number } = {},
): Promise<{ recalculated: number }> {
  const now = options.now ?? sweepClock(options.programId).now();
  const batchSize = options.batchSize ?? 500;
  let recalculated = 0;
  for (;;) {
    const done = await prisma.$transaction(
      async (tx) => {
        const due = await tx.$queryRawUnsafe<{ customerId: string; programId: string }[]>(
          `SELECT l."customerId", l."programId" FROM "LoyaltyData" l
             JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"
             JOIN "Customer" c ON c.id = l."customerId"
           WHERE ct."recalculationDate" <= $1::timestamptz AND c."deletedAt" IS NULL
             AND ($2::uuid IS NULL OR l."programId" = $2::uuid)
           LIMIT ${batchSize} FOR UPDATE OF l SKIP LOCKED`,
          now.toISOString(),
          options.programId ?? null,
        );
        for (const { customerId, programId } of due) {
          const loaded = await load(tx, programId, customerId);
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
