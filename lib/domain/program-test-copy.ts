import "server-only";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Tx } from "@/lib/db/types";
import { createProgramWithOwner, requireProgram } from "./programs";

/**
 * "Create a test copy" (API.md "Test programs"): a new test program with the configuration of `sourceId` — its
 * settings, tiers, earning flows, rewards and coupon pools (without their codes) — and none of its customers, keys,
 * webhooks, push endpoint or secrets. Its clock starts at the real time of the copy. In the caller's transaction;
 * the staff member who asked becomes its owner.
 */
export async function createTestCopy(
  tx: Tx,
  ownerStaffId: string,
  sourceId: string,
  input: { name: string },
): Promise<{ programId: string }> {
  const source = await requireProgram(tx, sourceId, PROGRAM_COPIED);
  const { programId } = await createProgramWithOwner(tx, ownerStaffId, { name: input.name, test: true });
  await tx.program.update({ where: { id: programId }, data: source });

  const tierIds = new Map<string, string>();
  for (const { id, programId: _p, createdAt: _c, updatedAt: _u, ...tier } of await tx.tier.findMany({
    where: { programId: sourceId },
  })) {
    const created = await tx.tier.create({ data: { ...tier, programId }, select: { id: true } });
    tierIds.set(id, created.id);
  }
  const flows = await tx.earningFlow.findMany({ where: { programId: sourceId } });
  if (flows.length > 0)
    await tx.earningFlow.createMany({
      data: flows.map(({ id: _i, programId: _p, createdAt: _c, updatedAt: _u, ...flow }) => ({
        ...flow,
        params: flow.params as Prisma.InputJsonValue,
        programId,
      })),
    });
  const rewards = await tx.reward.findMany({ where: { programId: sourceId } });
  if (rewards.length > 0)
    await tx.reward.createMany({
      data: rewards.map(({ id: _i, programId: _p, createdAt: _c, updatedAt: _u, ...reward }) => ({
        ...reward,
        minTierId: reward.minTierId ? (tierIds.get(reward.minTierId) ?? null) : null,
        programId,
      })),
    });
  const pools = await tx.couponPool.findMany({ where: { programId: sourceId } });
  if (pools.length > 0)
    await tx.couponPool.createMany({
      data: pools.map(({ id: _i, programId: _p, createdAt: _c, ...pool }) => ({ ...pool, programId })),
    });
  return { programId };
}

/** The program settings a test copy takes over (not its name, mode, clock, secrets or push endpoint). */
const PROGRAM_COPIED = {
  tierPeriodMonths: true,
  pointsExpiryMonths: true,
  timeZone: true,
  adjustCeilingSupport: true,
  adjustCeilingManager: true,
  redemptionCancelHours: true,
  referralLinkTemplate: true,
  referralReferrerPoints: true,
  referralReferredPoints: true,
  referralMinEarnPoints: true,
  referralCapCount: true,
  referralCapDays: true,
} as const satisfies Prisma.ProgramSelect;
