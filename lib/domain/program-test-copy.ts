import "server-only";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Tx } from "@/lib/db/types";
import type { CampaignBody, CampaignDefinition, Effect } from "./campaigns/definition";
import { createProgramWithOwner, requireProgram } from "./programs";

/** What the copy did with one campaign of the source, and why. */
export interface CopiedCampaign {
  sourceId: string;
  /** The copy's campaign (null: not copied). */
  id: string | null;
  name: string;
  as: "active" | "draft" | "not_copied";
  why: string;
}

/**
 * "Create a test copy" (API.md "Test programs"): a new test program with the configuration of `sourceId` — its
 * settings, tiers, earning flows, rewards and coupon pools (without their codes) — and none of its customers, keys,
 * webhooks, push endpoint or secrets. Its clock starts at the real time of the copy. In the caller's transaction;
 * the staff member who asked becomes its owner.
 *
 * Event types are copied as declared. Campaigns (their coupon pools pointed at the copies of the pools), each
 * answered with what was done and why:
 * - an active campaign runs in the copy as it runs in the source: its current version becomes the copy's version 1
 *   (active, activated at the copy's clock), and a pending change stays its draft: the copy behaves like the source;
 * - a paused campaign, and one never activated, become drafts (the paused one's draft is its pending change, else its
 *   current version): nothing runs in the copy that does not run in the source, and they can be activated there;
 * - an ended campaign is not copied: ended is final.
 * Budgets and per-customer uses start at zero (the copy has no customers).
 */
export async function createTestCopy(
  tx: Tx,
  ownerStaffId: string,
  sourceId: string,
  input: { name: string },
): Promise<{ programId: string; campaigns: CopiedCampaign[] }> {
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
  const poolIds = new Map<string, string>();
  for (const { id, programId: _p, createdAt: _c, updatedAt: _u, ...pool } of await tx.couponPool.findMany({
    where: { programId: sourceId },
  })) {
    const created = await tx.couponPool.create({ data: { ...pool, programId }, select: { id: true } });
    poolIds.set(id, created.id);
  }
  const eventTypes = await tx.eventType.findMany({ where: { programId: sourceId } });
  if (eventTypes.length > 0)
    await tx.eventType.createMany({
      data: eventTypes.map(({ id: _i, programId: _p, ...eventType }) => ({
        ...eventType,
        attributes: eventType.attributes as Prisma.InputJsonValue,
        programId,
      })),
    });
  const campaigns = await copyCampaigns(tx, sourceId, programId, poolIds);
  return { programId, campaigns };
}

/** The effects with each coupon pool replaced by its copy. */
const remapPools = <T extends { effects: Effect[] }>(body: T, poolIds: Map<string, string>): T => ({
  ...body,
  effects: body.effects.map((e) =>
    e.type === "assign_coupon" ? { ...e, couponPoolId: poolIds.get(e.couponPoolId) ?? e.couponPoolId } : e,
  ),
});

async function copyCampaigns(tx: Tx, sourceId: string, programId: string, poolIds: Map<string, string>) {
  const [clock] = await tx.program.findMany({ where: { id: programId }, select: { clockAt: true } });
  const copied: CopiedCampaign[] = [];
  const campaigns = await tx.campaign.findMany({
    where: { programId: sourceId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  for (const c of campaigns) {
    const current =
      c.version === null
        ? null
        : await tx.campaignVersion.findUnique({
            where: { campaignId_version: { campaignId: c.id, version: c.version } },
          });
    const pending = c.draft as CampaignBody | null;
    if (c.status === "ended") {
      copied.push({
        sourceId: c.id,
        id: null,
        name: c.name,
        as: "not_copied",
        why: "ended in the source: ended is final",
      });
      continue;
    }
    if (c.status === "active" && current) {
      const created = await tx.campaign.create({
        data: {
          programId,
          name: c.name,
          status: "active",
          version: 1,
          draft: pending ? (remapPools(pending, poolIds) as object) : undefined,
          createdAt: clock!.clockAt!,
          updatedAt: clock!.clockAt!,
        },
        select: { id: true },
      });
      await tx.campaignVersion.create({
        data: {
          campaignId: created.id,
          version: 1,
          programId,
          name: current.name,
          definition: remapPools(current.definition as unknown as CampaignDefinition, poolIds) as object,
          attrTypes: current.attrTypes as Prisma.InputJsonValue,
          activatedAt: clock!.clockAt!,
        },
      });
      copied.push({
        sourceId: c.id,
        id: created.id,
        name: c.name,
        as: "active",
        why: `active in the source: its version ${c.version} runs in the copy as version 1${pending ? ", its pending change kept as the draft" : ""}`,
      });
      continue;
    }
    const body: CampaignBody | null =
      pending ?? (current ? { name: current.name, ...(current.definition as unknown as CampaignDefinition) } : null);
    if (!body) continue;
    const created = await tx.campaign.create({
      data: {
        programId,
        name: body.name,
        status: "draft",
        draft: remapPools(body, poolIds) as object,
        createdAt: clock!.clockAt!,
        updatedAt: clock!.clockAt!,
      },
      select: { id: true },
    });
    copied.push({
      sourceId: c.id,
      id: created.id,
      name: body.name,
      as: "draft",
      why:
        c.status === "paused"
          ? "paused in the source: copied as a draft, to activate in the copy when wanted"
          : "never activated in the source: copied as the draft it is",
    });
  }
  return copied;
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
