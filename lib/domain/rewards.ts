import "server-only";
import { randomBytes } from "node:crypto";
import type { Db, Tx } from "@/lib/db/types";
import type { Prisma } from "@/lib/generated/prisma/client";
import { rewardInactive, rewardNotFound, rewardOutOfStock, validationFailed } from "@/lib/errors";
import { emitEvent } from "./events";
import { changeBalance } from "./ledger";
import { checkRedeemRules } from "./redeem-rules";
import { requireProgram } from "./programs";
import { jsonObject } from "./sql";
import { isoSql } from "@/lib/db/types";

export interface RewardInput {
  programId: string;
  name: string;
  costPoints: number;
  stock?: number | null;
  description?: string | null;
  image?: string | null;
  active?: boolean;
  /** Redemptions allowed per customer, ever; null: no limit (lib/domain/redeem-rules.ts). */
  perCustomerLimit?: number | null;
  /** The lowest tier that may redeem it; null: every customer. */
  minTierId?: string | null;
}

/** A reward's minimum tier must be a tier of its program (400 on `minTierId` otherwise). */
async function checkMinTier(db: Db, programId: string, minTierId: string | null | undefined) {
  if (!minTierId) return;
  const tier = await db.tier.findFirst({ where: { id: minTierId, programId }, select: { id: true } });
  if (!tier) throw validationFailed([{ path: "minTierId", message: "must be a tier of this program" }]);
}

export async function createReward(db: Db, input: RewardInput): Promise<{ rewardId: string }> {
  await requireProgram(db, input.programId);
  await checkMinTier(db, input.programId, input.minTierId);
  const reward = await db.reward.create({ data: input, select: { id: true } });
  return { rewardId: reward.id };
}

/** The program's reward with the `select`ed fields, or 404 `reward_not_found` (also for another program's reward). */
export async function requireReward<S extends Prisma.RewardSelect>(
  db: Db,
  rewardId: string,
  programId: string,
  select: S,
) {
  const reward = await db.reward.findFirst({ where: { id: rewardId, programId }, select });
  if (!reward) throw rewardNotFound();
  return reward;
}

/**
 * Changes a reward of the program (name, cost, stock, description, image, active, per-customer limit, minimum tier). Setting `stock` replaces the
 * units left (null: unlimited); redemptions already made are untouched.
 */
export async function updateReward(
  db: Db,
  programId: string,
  rewardId: string,
  changes: Partial<Omit<RewardInput, "programId">>,
) {
  await checkMinTier(db, programId, changes.minTierId);
  const updated = await db.reward.updateMany({ where: { id: rewardId, programId }, data: changes });
  if (updated.count === 0) throw rewardNotFound();
  return { rewardId };
}

export const rewardJson = (r: string) =>
  jsonObject({
    id: `${r}.id`,
    programId: `${r}."programId"`,
    name: `${r}.name`,
    description: `${r}.description`,
    image: `${r}.image`,
    costPoints: `${r}."costPoints"`,
    stock: `${r}.stock`,
    active: `${r}.active`,
    createdAt: isoSql(`${r}."createdAt"`),
    updatedAt: isoSql(`${r}."updatedAt"`),
  });

/** Active rewards, cheapest first, as JSON text. */
export async function listActiveRewardsJson(db: Db, programId: string): Promise<string> {
  const [row] = await db.$queryRawUnsafe<{ body: string }[]>(
    `SELECT coalesce(json_agg(${rewardJson("r")} ORDER BY r."costPoints", r.name), '[]'::json)::text AS body
     FROM "Reward" r WHERE r."programId" = $1::uuid AND r.active`,
    programId,
  );
  return row?.body ?? "[]";
}

const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"; // no 0/O or 1/I: codes are read aloud at tills

function redemptionCode(): string {
  let code = "";
  for (const b of randomBytes(10)) code += CODE_ALPHABET[b % CODE_ALPHABET.length];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * Redeems a reward in the caller's transaction: takes one unit of stock with a conditional UPDATE (never
 * below zero, whatever the concurrency), spends the cost through the ledger (never below zero either) and
 * records the redemption with its code. Any refusal rolls all of it back.
 */
export async function redeemReward(
  tx: Tx,
  input: {
    programId: string;
    customerId: string;
    rewardId: string;
    actor: string;
    source: "api" | "dashboard";
    metadata?: Record<string, unknown> | null;
    idempotencyKey?: string | null;
  },
) {
  const reward = await requireReward(tx, input.rewardId, input.programId, {
    costPoints: true,
    name: true,
    stock: true,
    active: true,
    perCustomerLimit: true,
    minTierId: true,
  });
  if (!reward.active) throw rewardInactive();
  // Only a limited reward takes a unit, with a conditional UPDATE that never goes below zero. An unlimited one
  // is not written at all, so its redemptions do not queue on one row.
  if (reward.stock !== null) {
    const taken = await tx.$executeRawUnsafe(
      `UPDATE "Reward" SET stock = stock - 1, "updatedAt" = now() WHERE id = $1::uuid AND active AND stock > 0`,
      input.rewardId,
    );
    if (taken === 0) throw rewardOutOfStock();
  }
  // After the stock row, as before: the lock order of every redemption stays Reward → LoyaltyData.
  await checkRedeemRules(tx, input.customerId, input.rewardId, input.programId, reward);
  const taken = { costPoints: reward.costPoints, name: reward.name };
  const spent = await changeBalance(tx, {
    programId: input.programId,
    customerId: input.customerId,
    points: -taken.costPoints,
    type: "redeem",
    source: input.source,
    actor: input.actor,
    reason: `reward: ${taken.name}`,
    metadata: { ...(input.metadata ?? {}), rewardId: input.rewardId }, // ours last: an integrator key named rewardId cannot override it
    idempotencyKey: input.idempotencyKey,
  });
  const redemption = await tx.redemption.create({
    data: {
      programId: input.programId,
      customerId: input.customerId,
      rewardId: input.rewardId,
      code: redemptionCode(),
      points: taken.costPoints,
      ledgerEntryId: spent.entryId,
      metadata: (input.metadata ?? undefined) as object | undefined,
    },
  });
  await emitEvent(tx, input.programId, "reward.redeemed", {
    customerId: input.customerId,
    rewardId: input.rewardId,
    redemptionId: redemption.id,
    code: redemption.code,
    points: taken.costPoints,
  });
  return {
    redemption: {
      id: redemption.id,
      rewardId: redemption.rewardId,
      customerId: redemption.customerId,
      code: redemption.code,
      points: redemption.points,
      transactionId: spent.entryId,
      metadata: redemption.metadata ?? null,
      createdAt: redemption.createdAt.toISOString(),
    },
    balance: spent.balance,
  };
}
