import "server-only";
import { requireRow } from "@/lib/db/require-row";
import { couponPoolNotFound, rewardNotFound } from "@/lib/errors";
import { createTier } from "@/lib/domain/tiers";
import { createReward, updateReward } from "@/lib/domain/rewards";
import { createCouponPool, importCoupons, updateCouponPool } from "@/lib/domain/coupons";
import { createEarningFlow } from "@/lib/domain/earning-flows";
import { audited, auditedUpdate } from "../audit";
import { staffOperation } from "../authz";
import type { CouponImportChunk, CouponPoolForm, CouponPoolUpdate } from "../forms/coupons";
import type { EarningFlowForm } from "../forms/earning-flows";
import type { RewardForm, RewardUpdate } from "../forms/rewards";
import type { TierForm } from "../forms/tiers";

/**
 * The staff writes on the program's catalogue: tiers, rewards, coupon pools (and their codes), earning flows.
 * All need `program.manage`, stated once per operation; each acts through the domain function the CLI uses and
 * audits in the same transaction.
 */

export const createTierAsStaff = staffOperation("program.manage", async (tx, staff, input: TierForm) => {
  const created = await createTier(tx, { programId: staff.programId, ...input });
  await audited(tx, staff, "tier.create", { type: "tier", id: created.tierId }, null, input);
  return created;
});

export const createRewardAsStaff = staffOperation("program.manage", async (tx, staff, input: RewardForm) => {
  const created = await createReward(tx, { programId: staff.programId, ...input });
  await audited(tx, staff, "reward.create", { type: "reward", id: created.rewardId }, null, input);
  return created;
});

const REWARD_FIELDS = {
  name: true,
  description: true,
  image: true,
  costPoints: true,
  stock: true,
  active: true,
  perCustomerLimit: true,
  minTierId: true,
} as const;

/** Any field of a reward of the staff member's program: name, description, image, cost, stock, active, rules. */
export const updateRewardAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, rewardId: string, input: RewardUpdate, version?: string) => {
    const { after, version: next } = await auditedUpdate(
      tx,
      staff,
      "reward.update",
      { type: "reward", id: rewardId },
      {
        read: () =>
          requireRow(
            rewardId,
            (id) => tx.reward.findFirst({ where: { id, programId: staff.programId }, select: REWARD_FIELDS }),
            rewardNotFound,
          ),
        change: () => updateReward(tx, staff.programId, rewardId, input),
        version: { of: "reward", expected: version },
      },
    );
    return { rewardId, ...after, version: next };
  },
);

export const createCouponPoolAsStaff = staffOperation("program.manage", async (tx, staff, input: CouponPoolForm) => {
  const created = await createCouponPool(tx, { programId: staff.programId, ...input });
  await audited(tx, staff, "coupon_pool.create", { type: "coupon_pool", id: created.couponPoolId }, null, input);
  return created;
});

/**
 * One chunk of a CSV import into a pool of the staff member's program: inserted in the caller's transaction,
 * so the chunk is all-or-nothing. Codes already in the pool (or repeated in the chunk) are skipped. The audit
 * row holds the counts, never the codes.
 */
export const importCouponsAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, poolId: string, input: CouponImportChunk) => {
    await requireRow(
      poolId,
      (id) => tx.couponPool.findFirst({ where: { id, programId: staff.programId }, select: { id: true } }),
      couponPoolNotFound,
    );
    const result = await importCoupons(tx, poolId, input.codes);
    await audited(tx, staff, "coupon_pool.import", { type: "coupon_pool", id: poolId }, null, {
      received: input.codes.length,
      ...result,
    });
    return result;
  },
);

const POOL_FIELDS = { name: true, validDays: true, active: true } as const;

/** Renames a pool, changes its validity, or switches it off (it assigns no codes) or on. */
export const updateCouponPoolAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, poolId: string, input: CouponPoolUpdate, version?: string) => {
    const { after, version: next } = await auditedUpdate(
      tx,
      staff,
      "coupon_pool.update",
      { type: "coupon_pool", id: poolId },
      {
        read: () =>
          requireRow(
            poolId,
            (id) => tx.couponPool.findFirst({ where: { id, programId: staff.programId }, select: POOL_FIELDS }),
            couponPoolNotFound,
          ),
        change: () => updateCouponPool(tx, staff.programId, poolId, input),
        version: { of: "coupon_pool", expected: version },
      },
    );
    return { couponPoolId: poolId, ...after, version: next };
  },
);

export const createEarningFlowAsStaff = staffOperation("program.manage", async (tx, staff, input: EarningFlowForm) => {
  const created = await createEarningFlow(tx, { programId: staff.programId, ...input });
  await audited(tx, staff, "earning_flow.create", { type: "earning_flow", id: created.earningFlowId }, null, input);
  return created;
});
