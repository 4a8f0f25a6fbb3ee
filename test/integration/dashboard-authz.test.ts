/**
 * Server-side authorisation of every dashboard write, per role, on a real database — no mocks of our code.
 *
 * 1. The operations (lib/staff/operations/*) called directly with each role's context, resolved from the
 *    database by lib/staff/authz.ts, on an in-memory PGlite: allowed roles change the data and write exactly
 *    one audit row in the same transaction; refused roles get 403 and change nothing.
 * 2. The JSON routes of the built app (`next start`), with real next-auth sessions signed in through the
 *    credentials provider: every write path, every role, plus signed-out and other-program callers.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { AppError } from "@/lib/errors";
import { applyUserBatch } from "@/lib/domain/customers";
import { createCouponPool, importCoupons } from "@/lib/domain/coupons";
import { increaseBalance } from "@/lib/domain/points";
import { createReward, redeemReward } from "@/lib/domain/rewards";
import { createStaff } from "@/lib/domain/staff";
import { ROLES, type Role } from "@/lib/domain/vocabulary";
import { can, resolveStaff, type StaffContext } from "@/lib/staff/authz";
import { CouponImportChunk, MAX_CODES_PER_CHUNK } from "@/lib/staff/forms/coupons";
import { UserDataEdit } from "@/lib/staff/forms/customers";
import { EarningFlowForm } from "@/lib/staff/forms/earning-flows";
import { BalanceAdjustment } from "@/lib/staff/forms/points";
import { RewardForm } from "@/lib/staff/forms/rewards";
import {
  adjustBalance,
  assignCouponToCustomer,
  deleteCustomer,
  notifyCustomer,
  redeemForCustomer,
  updateCustomer,
} from "@/lib/staff/operations/customers";
import {
  createCouponPoolAsStaff,
  createEarningFlowAsStaff,
  createRewardAsStaff,
  createTierAsStaff,
  importCouponsAsStaff,
  updateRewardAsStaff,
} from "@/lib/staff/operations/catalogue";
import { createApiKeyAsStaff, revokeApiKeyAsStaff } from "@/lib/staff/operations/api-keys";
import { updateReferralSettingsAsStaff } from "@/lib/staff/operations/referrals";
import {
  createWebhookAsStaff,
  resendDeliveryAsStaff,
  setPushEndpointAsStaff,
  setWebhookActiveAsStaff,
} from "@/lib/staff/operations/webhooks";
import { changeRoleAsStaff, createStaffAsStaff, setStaffDisabledAsStaff } from "@/lib/staff/operations/staff-accounts";
import { createApiKey } from "@/lib/domain/api-keys";
import { createWebhook } from "@/lib/domain/webhooks";
import { cancelRedemptionAsStaff } from "@/lib/staff/operations/redemptions";
import { memoryDatabase } from "../support/pglite-memory";
import { programWithTiersIn, type ProgramFixture } from "../support/fixtures";
import { BACKENDS, MIGRATED_ONLY, openStack, type AppInstance, type Stack } from "../support/stack";
import { signIn } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";

/** The matrix the brief asks for, written out independently of lib/staff/authz.ts's table. */
const ALLOWED: Record<string, readonly Role[]> = {
  "customer.update": ["owner", "manager", "support"],
  "balance.adjust": ["owner", "manager", "support"],
  "reward.redeem": ["owner", "manager", "support"],
  "redemption.cancel": ["owner", "manager", "support"],
  "coupon.assign": ["owner", "manager", "support"],
  "notification.send": ["owner", "manager", "support"],
  "customer.delete": ["owner", "manager"],
  "tier.create": ["owner", "manager"],
  "apikey.create": ["owner", "manager"],
  "apikey.revoke": ["owner", "manager"],
  "reward.create": ["owner", "manager"],
  "reward.update": ["owner", "manager"],
  "coupon_pool.create": ["owner", "manager"],
  "coupon_pool.import": ["owner", "manager"],
  "earning_flow.create": ["owner", "manager"],
  "webhook.create": ["owner", "manager"],
  "webhook.update": ["owner", "manager"],
  "push.set": ["owner", "manager"],
  "program.referrals_update": ["owner", "manager"],
  "delivery.resend": ["owner", "manager"],
  "staff.create": ["owner"],
  "staff.role": ["owner"],
  "staff.disable": ["owner"],
  "staff.enable": ["owner"],
};

interface World {
  program: ProgramFixture;
  other: ProgramFixture;
  rewardId: string;
  poolId: string;
  staffIds: Record<Role | "outsider", string>;
}

let counter = 0;
const email = (label: string) => `${label}.${++counter}.${Math.random().toString(36).slice(2, 8)}@example.com`;

async function newCustomer(prisma: PrismaClient, programId: string, points = 0) {
  const address = email("customer");
  await prisma.$transaction((tx) =>
    applyUserBatch(tx, programId, [
      { email: address, feature: "user", payload: { firstName: "Ada", lastName: "Lovelace" } },
    ]),
  );
  const { id } = (await prisma.customer.findFirst({ where: { programId, email: address }, select: { id: true } }))!;
  if (points) {
    await prisma.$transaction((tx) =>
      increaseBalance(tx, { programId, customerId: id, points, source: "api", actor: "test" }),
    );
  }
  return { id, email: address };
}

/** A staff member of `programId` (no usable password: for operations on them, not for signing in). */
async function member(prisma: PrismaClient, programId: string, role: Role, options: { disabled?: boolean } = {}) {
  const user = await prisma.staffUser.create({
    data: {
      email: email(`member-${role}`),
      passwordHash: "not-a-hash",
      name: "Member",
      disabledAt: options.disabled ? new Date() : null,
      memberships: { create: { programId, role } },
    },
    select: { id: true, email: true },
  });
  return user;
}

/** A webhook of `programId` and a failed delivery of an event to it. */
async function failedDelivery(prisma: PrismaClient, programId: string) {
  const { webhookId } = await createWebhook(prisma, { programId, url: `https://hooks.example.com/${++counter}` });
  const event = await prisma.event.create({
    data: { programId, type: "balance.changed", data: { points: 5 }, fannedOutAt: new Date() },
    select: { id: true },
  });
  return prisma.delivery.create({
    data: {
      programId,
      kind: "webhook",
      eventId: event.id,
      webhookId,
      url: `https://hooks.example.com/${counter}`,
      status: "failed",
      attempts: 7,
      lastStatusCode: 500,
      lastError: "HTTP 500",
    },
    select: { id: true, webhookId: true },
  });
}

/** A redemption of the world's reward by a new customer (through the API's domain function), to cancel. */
async function redeemed(prisma: PrismaClient, world: World): Promise<string> {
  const c = await newCustomer(prisma, world.program.programId, 100);
  const { redemption } = await prisma.$transaction((tx) =>
    redeemReward(tx, {
      programId: world.program.programId,
      customerId: c.id,
      rewardId: world.rewardId,
      actor: "test",
      source: "api",
    }),
  );
  return redemption.id;
}

/** A program with tiers, a reward, a coupon pool, one staff account per role, and an outsider from another program. */
async function buildWorld(prisma: PrismaClient): Promise<World> {
  const program = await programWithTiersIn(prisma, "Dashboard authz");
  const other = await programWithTiersIn(prisma, "Another program");
  const { rewardId } = await createReward(prisma, { programId: program.programId, name: "Mug", costPoints: 10 });
  const { couponPoolId: poolId } = await createCouponPool(prisma, { programId: program.programId, name: "Welcome" });
  await importCoupons(
    prisma,
    poolId,
    Array.from({ length: 20 }, (_, i) => `WELCOME-${i}`),
  );
  const staffIds = {} as World["staffIds"];
  for (const role of ROLES) {
    staffIds[role] = (
      await createStaff(prisma, { email: email(role), password: PASSWORD, programId: program.programId, role })
    ).staffId;
  }
  staffIds.outsider = (
    await createStaff(prisma, {
      email: email("outsider"),
      password: PASSWORD,
      programId: other.programId,
      role: "owner",
    })
  ).staffId;
  return { program, other, rewardId, poolId, staffIds };
}

describe("Dashboard operations, per role, on a real database", () => {
  let database: Awaited<ReturnType<typeof memoryDatabase>>;
  let prisma: PrismaClient;
  let world: World;
  const staff = {} as Record<Role, StaffContext>;

  before(async () => {
    database = await memoryDatabase();
    prisma = database.prisma;
    world = await buildWorld(prisma);
    for (const role of ROLES)
      staff[role] = (await resolveStaff(prisma, world.staffIds[role], world.program.programId))!;
  });
  after(() => database?.close());

  const auditCount = (programId = world.program.programId) => prisma.auditLog.count({ where: { programId } });

  /** Each write path: how to run it as `who` against a fresh customer, and how to see whether it happened. */
  const paths: Record<
    string,
    (who: StaffContext) => Promise<{ run: () => Promise<unknown>; happened: () => Promise<boolean> }>
  > = {
    "customer.update": async (who) => {
      const c = await newCustomer(prisma, world.program.programId);
      return {
        run: () =>
          prisma.$transaction((tx) =>
            updateCustomer(tx, who, c.id, UserDataEdit.parse({ lastName: "Byron", phone: "+44 20 7946 0000" })),
          ),
        happened: async () => (await prisma.userData.findUnique({ where: { customerId: c.id } }))!.lastName === "Byron",
      };
    },
    "balance.adjust": async (who) => {
      const c = await newCustomer(prisma, world.program.programId);
      return {
        run: () =>
          prisma.$transaction((tx) =>
            adjustBalance(tx, who, c.id, BalanceAdjustment.parse({ points: 50, reason: "Goodwill" })),
          ),
        happened: async () => (await prisma.loyaltyData.findUnique({ where: { customerId: c.id } }))!.balance === 50,
      };
    },
    "reward.redeem": async (who) => {
      const c = await newCustomer(prisma, world.program.programId, 100);
      return {
        run: () => prisma.$transaction((tx) => redeemForCustomer(tx, who, c.id, { rewardId: world.rewardId })),
        happened: async () => (await prisma.redemption.count({ where: { customerId: c.id } })) === 1,
      };
    },
    "redemption.cancel": async (who) => {
      const redemptionId = await redeemed(prisma, world);
      return {
        run: () =>
          prisma.$transaction((tx) => cancelRedemptionAsStaff(tx, who, redemptionId, { reason: "Order cancelled" })),
        happened: async () =>
          (await prisma.redemption.findUnique({ where: { id: redemptionId } }))!.cancelledAt !== null,
      };
    },
    "coupon.assign": async (who) => {
      const c = await newCustomer(prisma, world.program.programId);
      return {
        run: () => prisma.$transaction((tx) => assignCouponToCustomer(tx, who, c.id, { couponPoolId: world.poolId })),
        happened: async () => (await prisma.coupon.count({ where: { customerId: c.id } })) === 1,
      };
    },
    "notification.send": async (who) => {
      const c = await newCustomer(prisma, world.program.programId);
      return {
        run: () =>
          prisma.$transaction((tx) =>
            notifyCustomer(tx, who, c.id, { title: "Hello", body: "Your points are waiting", category: "balance" }),
          ),
        happened: async () => (await prisma.notification.count({ where: { customerId: c.id } })) === 1,
      };
    },
    "customer.delete": async (who) => {
      const c = await newCustomer(prisma, world.program.programId);
      return {
        run: () => prisma.$transaction((tx) => deleteCustomer(tx, who, c.id)),
        happened: async () => (await prisma.customer.findUnique({ where: { id: c.id } }))!.deletedAt !== null,
      };
    },
    "tier.create": async (who) => {
      const name = `Tier ${++counter}`;
      return {
        run: () =>
          prisma.$transaction((tx) =>
            createTierAsStaff(tx, who, { name, requiredPoints: 100_000 + counter, factor: 2 }),
          ),
        happened: async () => (await prisma.tier.count({ where: { programId: world.program.programId, name } })) === 1,
      };
    },
    "apikey.create": async (who) => {
      const name = `Key ${++counter}`;
      return {
        run: () => prisma.$transaction((tx) => createApiKeyAsStaff(tx, who, { name })),
        happened: async () =>
          (await prisma.apiKey.count({ where: { programId: world.program.programId, name } })) === 1,
      };
    },
    "apikey.revoke": async (who) => {
      const key = await createApiKey(prisma, { programId: world.program.programId, name: `To revoke ${++counter}` });
      return {
        run: () => prisma.$transaction((tx) => revokeApiKeyAsStaff(tx, who, key.id)),
        happened: async () => (await prisma.apiKey.findUnique({ where: { id: key.id } }))!.revokedAt !== null,
      };
    },
    "reward.create": async (who) => {
      const name = `Reward ${++counter}`;
      return {
        run: () =>
          prisma.$transaction((tx) =>
            createRewardAsStaff(tx, who, RewardForm.parse({ name, costPoints: 150, stock: 3 })),
          ),
        happened: async () =>
          (await prisma.reward.count({
            where: { programId: world.program.programId, name, costPoints: 150, stock: 3 },
          })) === 1,
      };
    },
    "reward.update": async (who) => {
      const { rewardId } = await createReward(prisma, {
        programId: world.program.programId,
        name: `Editable ${++counter}`,
        costPoints: 10,
      });
      return {
        run: () =>
          prisma.$transaction((tx) =>
            updateRewardAsStaff(tx, who, rewardId, { active: false, stock: 7, costPoints: 20 }),
          ),
        happened: async () => {
          const r = (await prisma.reward.findUnique({ where: { id: rewardId } }))!;
          return !r.active && r.stock === 7 && r.costPoints === 20;
        },
      };
    },
    "coupon_pool.create": async (who) => {
      const name = `Pool ${++counter}`;
      return {
        run: () => prisma.$transaction((tx) => createCouponPoolAsStaff(tx, who, { name, validDays: 30 })),
        happened: async () =>
          (await prisma.couponPool.count({ where: { programId: world.program.programId, name, validDays: 30 } })) === 1,
      };
    },
    "coupon_pool.import": async (who) => {
      const { couponPoolId } = await createCouponPool(prisma, {
        programId: world.program.programId,
        name: `Import ${++counter}`,
      });
      const codes = Array.from({ length: 50 }, (_, i) => `IMP-${counter}-${i}`);
      return {
        run: () =>
          prisma.$transaction((tx) => importCouponsAsStaff(tx, who, couponPoolId, CouponImportChunk.parse({ codes }))),
        happened: async () => (await prisma.coupon.count({ where: { poolId: couponPoolId } })) === 50,
      };
    },
    "earning_flow.create": async (who) => {
      const key = `flow-${++counter}`;
      return {
        run: () =>
          prisma.$transaction((tx) =>
            createEarningFlowAsStaff(
              tx,
              who,
              EarningFlowForm.parse({ key, pointsPerUnit: 0.5, param: "amount", capPerDay: 100, once: false }),
            ),
          ),
        happened: async () =>
          (await prisma.earningFlow.count({
            where: { programId: world.program.programId, key, pointsPerUnit: 0.5, param: "amount" },
          })) === 1,
      };
    },
    "webhook.create": async (who) => {
      const url = `https://hooks.example.com/new/${++counter}`;
      return {
        run: () => prisma.$transaction((tx) => createWebhookAsStaff(tx, who, { url })),
        happened: async () =>
          (await prisma.webhook.count({ where: { programId: world.program.programId, url } })) === 1,
      };
    },
    "webhook.update": async (who) => {
      const { webhookId } = await createWebhook(prisma, {
        programId: world.program.programId,
        url: `https://hooks.example.com/off/${++counter}`,
      });
      return {
        run: () => prisma.$transaction((tx) => setWebhookActiveAsStaff(tx, who, webhookId, { active: false })),
        happened: async () => (await prisma.webhook.findUnique({ where: { id: webhookId } }))!.active === false,
      };
    },
    "push.set": async (who) => {
      const url = `https://push.example.com/${++counter}`;
      return {
        run: () => prisma.$transaction((tx) => setPushEndpointAsStaff(tx, who, { url })),
        happened: async () =>
          (await prisma.program.findUnique({ where: { id: world.program.programId } }))!.pushEndpointUrl === url,
      };
    },
    "program.referrals_update": async (who) => {
      const points = 1000 + ++counter;
      const settings = {
        referralLinkTemplate: "https://shop.example.com/join?ref={code}",
        referralReferrerPoints: points,
        referralReferredPoints: 50,
        referralMinEarnPoints: 1,
        referralCapCount: null,
        referralCapDays: 30,
      };
      return {
        run: () => prisma.$transaction((tx) => updateReferralSettingsAsStaff(tx, who, settings)),
        happened: async () =>
          (await prisma.program.findUnique({ where: { id: world.program.programId } }))!.referralReferrerPoints ===
          points,
      };
    },
    "delivery.resend": async (who) => {
      const delivery = await failedDelivery(prisma, world.program.programId);
      return {
        run: () => prisma.$transaction((tx) => resendDeliveryAsStaff(tx, who, delivery.id)),
        happened: async () => (await prisma.delivery.findUnique({ where: { id: delivery.id } }))!.status === "pending",
      };
    },
    "staff.create": async (who) => {
      const address = email("new-staff");
      return {
        run: () =>
          prisma.$transaction((tx) =>
            createStaffAsStaff(tx, who, { email: address, name: "New Member", password: PASSWORD, role: "support" }),
          ),
        happened: async () =>
          (await prisma.staffMembership.count({
            where: { programId: world.program.programId, staff: { email: address } },
          })) === 1,
      };
    },
    "staff.role": async (who) => {
      const target = await member(prisma, world.program.programId, "support");
      return {
        run: () => prisma.$transaction((tx) => changeRoleAsStaff(tx, who, target.id, { role: "viewer" })),
        happened: async () =>
          (await prisma.staffMembership.findUnique({
            where: { staffId_programId: { staffId: target.id, programId: world.program.programId } },
          }))!.role === "viewer",
      };
    },
    "staff.disable": async (who) => {
      const target = await member(prisma, world.program.programId, "support");
      return {
        run: () => prisma.$transaction((tx) => setStaffDisabledAsStaff(tx, who, target.id, { disabled: true })),
        happened: async () => (await prisma.staffUser.findUnique({ where: { id: target.id } }))!.disabledAt !== null,
      };
    },
    "staff.enable": async (who) => {
      const target = await member(prisma, world.program.programId, "manager", { disabled: true });
      return {
        run: () => prisma.$transaction((tx) => setStaffDisabledAsStaff(tx, who, target.id, { disabled: false })),
        happened: async () => (await prisma.staffUser.findUnique({ where: { id: target.id } }))!.disabledAt === null,
      };
    },
  };

  test("the permission table gives each role what the brief says", () => {
    assert.deepEqual(
      ROLES.filter((r) => can(r, "customers.read")),
      ["owner", "manager", "support", "viewer"],
    );
    assert.deepEqual(
      ROLES.filter((r) => can(r, "audit.read")),
      ["owner", "manager"],
    );
    assert.deepEqual(
      ROLES.filter((r) => can(r, "program.manage")),
      ["owner", "manager"],
    );
    assert.deepEqual(
      ROLES.filter((r) => can(r, "staff.manage")),
      ["owner"],
    );
    assert.equal(can(undefined, "customers.read"), false);
  });

  for (const [action, allowed] of Object.entries(ALLOWED)) {
    for (const role of ROLES) {
      const may = allowed.includes(role);
      test(`${action} as ${role}: ${may ? "done and audited" : "refused with 403, nothing changed"}`, async () => {
        const { run, happened } = await paths[action]!(staff[role]);
        const audits = await auditCount();
        if (may) {
          await run();
          assert.equal(await happened(), true);
          assert.equal(await auditCount(), audits + 1);
          const [last] = await prisma.auditLog.findMany({
            where: { programId: world.program.programId },
            orderBy: { createdAt: "desc" },
            take: 1,
          });
          assert.equal(last!.action, action);
          assert.equal(last!.staffId, staff[role].staffId);
          assert.equal(last!.staffEmail, staff[role].email);
        } else {
          await assert.rejects(
            run(),
            (err: unknown) => err instanceof AppError && err.status === 403 && err.code === "forbidden",
          );
          assert.equal(await happened(), false);
          assert.equal(await auditCount(), audits);
        }
      });
    }
  }

  test("a dashboard adjustment goes through the ledger: source dashboard, actor staff:<id>, the reason, an adjust entry", async () => {
    const c = await newCustomer(prisma, world.program.programId, 30);
    await prisma.$transaction((tx) => adjustBalance(tx, staff.support, c.id, { points: 50, reason: "Late delivery" }));
    await prisma.$transaction((tx) =>
      adjustBalance(tx, staff.support, c.id, { points: -20, reason: "Duplicate order" }),
    );
    const entries = await prisma.ledgerEntry.findMany({ where: { customerId: c.id }, orderBy: { createdAt: "asc" } });
    assert.deepEqual(
      entries.map((e) => [e.type, e.points, e.balanceAfter, e.source, e.actor, e.reason]),
      [
        ["earn", 30, 30, "api", "test", null],
        ["adjust", 50, 80, "dashboard", `staff:${staff.support.staffId}`, "Late delivery"],
        ["adjust", -20, 60, "dashboard", `staff:${staff.support.staffId}`, "Duplicate order"],
      ],
    );
    const balance = (await prisma.loyaltyData.findUnique({ where: { customerId: c.id } }))!.balance;
    assert.equal(
      balance,
      entries.reduce((s, e) => s + e.points, 0),
    );
    // Adjustments do not count towards tiers (API.md §4).
    assert.equal((await prisma.customerTier.findUnique({ where: { customerId: c.id } }))!.currentTierPoints, 30);
    const audit = await prisma.auditLog.findFirst({
      where: { entityId: c.id, action: "balance.adjust" },
      orderBy: { createdAt: "desc" },
    });
    assert.deepEqual(audit!.before, { balance: 80 });
    assert.equal((audit!.after as { balance: number }).balance, 60);
  });

  test("a refused change leaves no audit row, and a failed audit rolls the change back (same transaction)", async () => {
    const c = await newCustomer(prisma, world.program.programId, 10);
    const audits = await auditCount();
    await assert.rejects(
      prisma.$transaction((tx) => adjustBalance(tx, staff.support, c.id, { points: -11, reason: "Too much" })),
      (err: unknown) => err instanceof AppError && err.code === "insufficient_balance",
    );
    assert.equal(await auditCount(), audits);
    // An actor the audit log cannot record (staffEmail is NOT NULL): the balance change must not survive.
    const broken = { ...staff.support, email: null as unknown as string };
    await assert.rejects(
      prisma.$transaction((tx) => adjustBalance(tx, broken, c.id, { points: 5, reason: "Audit fails" })),
    );
    assert.equal((await prisma.loyaltyData.findUnique({ where: { customerId: c.id } }))!.balance, 10);
    assert.equal(await prisma.ledgerEntry.count({ where: { customerId: c.id } }), 1);
  });

  test("staff of another program resolve to nothing here and cannot reach this program's customers", async () => {
    assert.equal(await resolveStaff(prisma, world.staffIds.outsider, world.program.programId), null);
    const outsider = (await resolveStaff(prisma, world.staffIds.outsider, world.other.programId))!;
    assert.equal(outsider.role, "owner");
    const c = await newCustomer(prisma, world.program.programId);
    await assert.rejects(
      prisma.$transaction((tx) => adjustBalance(tx, outsider, c.id, { points: 5, reason: "Cross-program" })),
      (err: unknown) => err instanceof AppError && err.status === 404,
    );
    assert.equal((await prisma.loyaltyData.findUnique({ where: { customerId: c.id } }))!.balance, 0);
    await assert.rejects(
      prisma.$transaction((tx) => updateCustomer(tx, staff.support, "not-a-uuid", {})),
      (err: unknown) => err instanceof AppError && err.status === 404,
    );
  });

  test("a disabled account resolves to nothing, whatever its role", async () => {
    const { staffId } = await createStaff(prisma, {
      email: email("disabled"),
      password: PASSWORD,
      programId: world.program.programId,
      role: "owner",
    });
    assert.ok(await resolveStaff(prisma, staffId, world.program.programId));
    await prisma.staffUser.update({ where: { id: staffId }, data: { disabledAt: new Date() } });
    assert.equal(await resolveStaff(prisma, staffId, world.program.programId), null);
  });

  const isConflict = (err: unknown) => err instanceof AppError && err.status === 409 && err.code === "conflict";

  test("an owner cannot demote or disable themself (409, nothing changed)", async () => {
    const audits = await auditCount();
    await assert.rejects(
      prisma.$transaction((tx) => changeRoleAsStaff(tx, staff.owner, staff.owner.staffId, { role: "manager" })),
      isConflict,
    );
    await assert.rejects(
      prisma.$transaction((tx) => setStaffDisabledAsStaff(tx, staff.owner, staff.owner.staffId, { disabled: true })),
      isConflict,
    );
    assert.ok(await resolveStaff(prisma, staff.owner.staffId, world.program.programId));
    assert.equal((await resolveStaff(prisma, staff.owner.staffId, world.program.programId))!.role, "owner");
    assert.equal(await auditCount(), audits);
  });

  test("the last active owner cannot be demoted or disabled, even by an owner demoted a moment ago (409, nothing changed)", async () => {
    const { programId } = await programWithTiersIn(prisma, "Two owners");
    const [a, b] = [await member(prisma, programId, "owner"), await member(prisma, programId, "owner")];
    const asA = (await resolveStaff(prisma, a.id, programId))!;
    // B's request was authorised while B was still an owner; A demotes B first.
    const asB = (await resolveStaff(prisma, b.id, programId))!;
    await prisma.$transaction((tx) => changeRoleAsStaff(tx, asA, b.id, { role: "manager" }));
    const audits = await auditCount(programId);
    await assert.rejects(
      prisma.$transaction((tx) => changeRoleAsStaff(tx, asB, a.id, { role: "viewer" })),
      isConflict,
    );
    await assert.rejects(
      prisma.$transaction((tx) => setStaffDisabledAsStaff(tx, asB, a.id, { disabled: true })),
      isConflict,
    );
    assert.equal((await resolveStaff(prisma, a.id, programId))?.role, "owner");
    assert.equal(await auditCount(programId), audits);
    // With a second active owner again, the demotion goes through.
    await prisma.$transaction((tx) => changeRoleAsStaff(tx, asA, b.id, { role: "owner" }));
    await prisma.$transaction((tx) => changeRoleAsStaff(tx, asB, a.id, { role: "viewer" }));
    assert.equal((await resolveStaff(prisma, a.id, programId))?.role, "viewer");
  });

  test("an account that also belongs to a program the owner does not own cannot be disabled from here", async () => {
    const target = await member(prisma, world.program.programId, "support");
    await prisma.staffMembership.create({
      data: { staffId: target.id, programId: world.other.programId, role: "owner" },
    });
    const audits = await auditCount();
    await assert.rejects(
      prisma.$transaction((tx) => setStaffDisabledAsStaff(tx, staff.owner, target.id, { disabled: true })),
      isConflict,
    );
    assert.equal((await prisma.staffUser.findUnique({ where: { id: target.id } }))!.disabledAt, null);
    assert.equal(await auditCount(), audits);
    // Nor can an existing account be re-added (its password would be reset).
    await assert.rejects(
      prisma.$transaction((tx) =>
        createStaffAsStaff(tx, staff.owner, { email: target.email, name: "Taken", password: PASSWORD, role: "viewer" }),
      ),
      isConflict,
    );
    assert.equal((await prisma.staffUser.findUnique({ where: { id: target.id } }))!.passwordHash, "not-a-hash");
  });

  test("webhook and push secrets, URL credentials and passwords never reach the audit log", async () => {
    const hook = await prisma.$transaction((tx) =>
      createWebhookAsStaff(tx, staff.manager, { url: "https://user:hook-password@hooks.example.com/secret-path" }),
    );
    assert.match(hook.secret, /^whsec_[0-9a-f]{48}$/);
    const push = await prisma.$transaction((tx) =>
      setPushEndpointAsStaff(tx, staff.manager, { url: "https://push.example.com/notify" }),
    );
    assert.match(push.secret!, /^whsec_/);
    const address = email("audited");
    const created = await prisma.$transaction((tx) =>
      createStaffAsStaff(tx, staff.owner, {
        email: address,
        name: "Audited",
        password: "a password of some length",
        role: "viewer",
      }),
    );
    const hash = (await prisma.staffUser.findUnique({ where: { id: created.id } }))!.passwordHash;
    const log = JSON.stringify(await prisma.auditLog.findMany({ where: { programId: world.program.programId } }));
    for (const secret of [hook.secret, push.secret!, "hook-password", "a password of some length", hash])
      assert.ok(!log.includes(secret), `audit log holds ${secret}`);
    assert.ok(log.includes("hooks.example.com/secret-path") && log.includes(address));
    // The page's read never selects it either.
    const { webhookSettings } = await import("@/lib/staff/queries/webhooks");
    assert.ok(!JSON.stringify(await webhookSettings(prisma, world.program.programId)).includes(hook.secret));
  });

  test("re-sending: only the program's own deliveries, and not to a disabled webhook", async () => {
    const theirs = await failedDelivery(prisma, world.other.programId);
    await assert.rejects(
      prisma.$transaction((tx) => resendDeliveryAsStaff(tx, staff.owner, theirs.id)),
      (err: unknown) => err instanceof AppError && err.status === 404,
    );
    await assert.rejects(
      prisma.$transaction((tx) => resendDeliveryAsStaff(tx, staff.owner, "not-a-uuid")),
      (err: unknown) => err instanceof AppError && err.status === 404,
    );
    assert.equal((await prisma.delivery.findUnique({ where: { id: theirs.id } }))!.status, "failed");
    const ours = await failedDelivery(prisma, world.program.programId);
    await prisma.$transaction((tx) => setWebhookActiveAsStaff(tx, staff.manager, ours.webhookId!, { active: false }));
    await assert.rejects(
      prisma.$transaction((tx) => resendDeliveryAsStaff(tx, staff.manager, ours.id)),
      isConflict,
    );
    assert.equal((await prisma.delivery.findUnique({ where: { id: ours.id } }))!.status, "failed");
  });

  test("the edit form has the API's rules: bad phone and unknown fields refused, renames allowed", async () => {
    assert.equal(UserDataEdit.safeParse({ phone: "call me" }).success, false);
    assert.equal(UserDataEdit.safeParse({ balance: 1_000_000 }).success, false);
    assert.equal(UserDataEdit.safeParse({ birthdate: "1990-02-30" }).success, false);
    assert.equal(BalanceAdjustment.safeParse({ points: 5, reason: "" }).success, false);
    assert.equal(BalanceAdjustment.safeParse({ points: 0, reason: "Zero" }).success, false);
    const c = await newCustomer(prisma, world.program.programId);
    const renamed = email("renamed").toUpperCase();
    const after = await prisma.$transaction((tx) =>
      updateCustomer(tx, staff.support, c.id, UserDataEdit.parse({ email: renamed, birthdate: "1990-02-28" })),
    );
    assert.equal(after.email, renamed.toLowerCase());
    assert.equal(after.birthdate, "1990-02-28");
  });

  test("a coupon import is all-or-nothing: a bad code or a failed audit leaves the pool as it was; the audit holds counts, not codes", async () => {
    const { couponPoolId } = await createCouponPool(prisma, {
      programId: world.program.programId,
      name: `Atomic ${++counter}`,
    });
    const count = () => prisma.coupon.count({ where: { poolId: couponPoolId } });
    // Past the schema (a forged call of the operation): more codes than one insert, the last one invalid.
    const codes = Array.from({ length: 6000 }, (_, i) => `ATOM-${i}`);
    codes[5500] = "not a code!";
    await assert.rejects(
      prisma.$transaction((tx) => importCouponsAsStaff(tx, staff.manager, couponPoolId, { codes })),
      (err: unknown) => err instanceof AppError && err.code === "validation_failed",
    );
    assert.equal(await count(), 0, "the first 5,000 codes were rolled back with the rest");
    const broken = { ...staff.manager, email: null as unknown as string };
    await assert.rejects(
      prisma.$transaction((tx) => importCouponsAsStaff(tx, broken, couponPoolId, { codes: ["ATOM-A", "ATOM-B"] })),
    );
    assert.equal(await count(), 0);

    const first = await prisma.$transaction((tx) =>
      importCouponsAsStaff(tx, staff.manager, couponPoolId, { codes: ["ATOM-A", "ATOM-B", "ATOM-A"] }),
    );
    assert.deepEqual(first, { imported: 2, skipped: 1 });
    const again = await prisma.$transaction((tx) =>
      importCouponsAsStaff(tx, staff.manager, couponPoolId, { codes: ["ATOM-B", "ATOM-C"] }),
    );
    assert.deepEqual(again, { imported: 1, skipped: 1 });
    assert.equal(await count(), 3);
    const audits = await prisma.auditLog.findMany({
      where: { entityId: couponPoolId, action: "coupon_pool.import" },
      orderBy: { createdAt: "asc" },
    });
    assert.deepEqual(
      audits.map((a) => a.after),
      [
        { received: 3, imported: 2, skipped: 1 },
        { received: 2, imported: 1, skipped: 1 },
      ],
    );
    assert.ok(!JSON.stringify(audits).includes("ATOM-"));

    // Another program's pool is out of reach, even for its owner's role elsewhere.
    const outsider = (await resolveStaff(prisma, world.staffIds.outsider, world.other.programId))!;
    await assert.rejects(
      prisma.$transaction((tx) => importCouponsAsStaff(tx, outsider, couponPoolId, { codes: ["ATOM-X"] })),
      (err: unknown) => err instanceof AppError && err.status === 404,
    );
    assert.equal(await count(), 3);
  });

  test("the catalogue forms have the CLI's rules", () => {
    assert.equal(CouponImportChunk.safeParse({ codes: [] }).success, false);
    assert.equal(
      CouponImportChunk.safeParse({ codes: Array.from({ length: MAX_CODES_PER_CHUNK + 1 }, (_, i) => `C${i}`) })
        .success,
      false,
    );
    assert.equal(CouponImportChunk.safeParse({ codes: ["-starts-with-dash"] }).success, false);
    assert.equal(CouponImportChunk.safeParse({ codes: ["X".repeat(65)] }).success, false);
    assert.deepEqual(CouponImportChunk.parse({ codes: [" SUMMER_10-a "] }).codes, ["SUMMER_10-a"]);
    assert.equal(
      EarningFlowForm.safeParse({ key: "visit", points: 5, pointsPerUnit: 1, param: "amount" }).success,
      false,
    );
    assert.equal(EarningFlowForm.safeParse({ key: "visit" }).success, false);
    assert.equal(EarningFlowForm.safeParse({ key: "Visit", points: 5 }).success, false);
    assert.equal(EarningFlowForm.safeParse({ key: "purchase", pointsPerUnit: 0.1 }).success, false);
    assert.equal(
      EarningFlowForm.safeParse({ key: "purchase", pointsPerUnit: 0.1, param: "amount", once: true }).success,
      true,
    );
    assert.equal(RewardForm.safeParse({ name: "Mug", costPoints: 0 }).success, false);
    assert.equal(RewardForm.safeParse({ name: "Mug", costPoints: 10, stock: -1 }).success, false);
  });

  test("deleting a customer erases the personal data its audit entries held", async () => {
    const c = await newCustomer(prisma, world.program.programId);
    await prisma.$transaction((tx) =>
      updateCustomer(tx, staff.support, c.id, { lastName: "Secret-Name", phone: "+1 555 0100" }),
    );
    await prisma.$transaction((tx) => deleteCustomer(tx, staff.manager, c.id));
    const rows = await prisma.auditLog.findMany({ where: { entityId: c.id }, orderBy: { createdAt: "asc" } });
    assert.deepEqual(
      rows.map((r) => r.action),
      ["customer.update", "customer.delete"],
    );
    const text = JSON.stringify(rows);
    assert.ok(!text.includes("Secret-Name") && !text.includes(c.email) && !text.includes("555 0100"), text);
    assert.equal((rows[0]!.after as { redacted: boolean }).redacted, true);
  });
});

for (const backend of BACKENDS) {
  describe(`Dashboard routes, per role, through real sessions [${backend}]`, () => {
    let stack: Stack<{ key?: string }>;
    let app: AppInstance;
    let world: World;
    const emails = {} as Record<Role | "outsider", string>;
    const cookies = {} as Record<Role | "outsider", string>;
    const customers: string[] = [];
    /** Fixtures consumed one per call by the routes below. */
    const pool = {
      webhooks: [] as string[],
      deliveries: [] as string[],
      roleTargets: [] as string[],
      disableTargets: [] as string[],
      enableTargets: [] as string[],
      redemptions: [] as string[],
    };
    const take = (list: string[]) => list.shift()!;
    /** Support members who sign in and are then demoted or disabled. */
    const late = { disabled: "", demoted: "" } as Record<"disabled" | "demoted", string>;
    const lateIds = {} as Record<"disabled" | "demoted", string>;
    const lateCookies = {} as Record<"disabled" | "demoted", string>;

    before(async () => {
      stack = await openStack(backend, MIGRATED_ONLY);
      await stack.withPrisma(async (prisma) => {
        world = await buildWorld(prisma);
        for (const [who, staffId] of Object.entries(world.staffIds)) {
          emails[who as Role] = (await prisma.staffUser.findUnique({ where: { id: staffId } }))!.email;
        }
        for (let i = 0; i < 40; i++) customers.push((await newCustomer(prisma, world.program.programId, 100)).id);
        for (let i = 0; i < ROLES.length; i++) {
          pool.webhooks.push(
            (
              await createWebhook(prisma, {
                programId: world.program.programId,
                url: `https://hooks.example.com/http/${i}`,
              })
            ).webhookId,
          );
          pool.deliveries.push((await failedDelivery(prisma, world.program.programId)).id);
          pool.roleTargets.push((await member(prisma, world.program.programId, "support")).id);
          pool.disableTargets.push((await member(prisma, world.program.programId, "support")).id);
          pool.enableTargets.push((await member(prisma, world.program.programId, "support", { disabled: true })).id);
          pool.redemptions.push(await redeemed(prisma, world));
        }
        for (const who of ["disabled", "demoted"] as const) {
          late[who] = email(who);
          lateIds[who] = (
            await createStaff(prisma, {
              email: late[who],
              password: PASSWORD,
              programId: world.program.programId,
              role: "support",
            })
          ).staffId;
        }
      });
      app = await stack.start({
        AUTH_SECRET_FILE: path.join(os.tmpdir(), `loyalty-auth-secret-${process.pid}-${backend}`),
      });
      for (const who of [...ROLES, "outsider"] as const) {
        const cookie = await signIn(app.baseUrl, emails[who], PASSWORD);
        assert.ok(cookie, `${who} could not sign in`);
        cookies[who] = cookie;
      }
      for (const who of ["disabled", "demoted"] as const)
        lateCookies[who] = (await signIn(app.baseUrl, late[who], PASSWORD))!;
    });
    after(() => stack?.close());

    const call = async (
      who: Role | "outsider" | null,
      method: string,
      path: string,
      body?: unknown,
      cookie?: string,
    ) => {
      // The dashboard's own pages send their Origin with every write (lib/staff/http.ts refuses others).
      const headers: Record<string, string> = { origin: app.baseUrl };
      if (who) headers.cookie = cookies[who];
      if (cookie) headers.cookie = cookie;
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(`${app.baseUrl}/api/staff/${world.program.programId}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };

    let next = 0;
    const fresh = () => customers[next++]!;
    const routes: Record<string, () => { method: string; path: string; body?: unknown; ok: number }> = {
      "customer.update": () => ({
        method: "PATCH",
        path: `/customers/${fresh()}`,
        body: { lastName: "Byron" },
        ok: 200,
      }),
      "balance.adjust": () => ({
        method: "POST",
        path: `/customers/${fresh()}/balance`,
        body: { points: 25, reason: "Goodwill" },
        ok: 200,
      }),
      "reward.redeem": () => ({
        method: "POST",
        path: `/customers/${fresh()}/redeem`,
        body: { rewardId: world.rewardId },
        ok: 201,
      }),
      "redemption.cancel": () => ({
        method: "POST",
        path: `/redemptions/${take(pool.redemptions)}/cancel`,
        body: { reason: "Order cancelled" },
        ok: 200,
      }),
      "coupon.assign": () => ({
        method: "POST",
        path: `/customers/${fresh()}/coupons`,
        body: { couponPoolId: world.poolId },
        ok: 201,
      }),
      "notification.send": () => ({
        method: "POST",
        path: `/customers/${fresh()}/notifications`,
        body: { title: "Hi", body: "Points!", category: "balance" },
        ok: 202,
      }),
      "customer.delete": () => ({ method: "DELETE", path: `/customers/${fresh()}`, ok: 200 }),
      "tier.create": () => ({
        method: "POST",
        path: `/tiers`,
        body: { name: `Tier ${++counter}`, requiredPoints: 200_000 + counter, factor: 2 },
        ok: 201,
      }),
      "apikey.create": () => ({ method: "POST", path: `/api-keys`, body: { name: `Key ${++counter}` }, ok: 201 }),
      "reward.create": () => ({
        method: "POST",
        path: `/rewards`,
        body: { name: `Reward ${++counter}`, costPoints: 40, stock: 5 },
        ok: 201,
      }),
      // The cost it already has: the reward stays redeemable for the other tests.
      "reward.update": () => ({
        method: "PATCH",
        path: `/rewards/${world.rewardId}`,
        body: { costPoints: 10 },
        ok: 200,
      }),
      "coupon_pool.create": () => ({
        method: "POST",
        path: `/coupon-pools`,
        body: { name: `Pool ${++counter}`, validDays: 14 },
        ok: 201,
      }),
      "coupon_pool.import": () => ({
        method: "POST",
        path: `/coupon-pools/${world.poolId}/codes`,
        body: { codes: [`ROUTE-${++counter}-A`, `ROUTE-${counter}-B`] },
        ok: 200,
      }),
      "earning_flow.create": () => ({
        method: "POST",
        path: `/earning-flows`,
        body: { key: `flow-${++counter}`, points: 10, capTotal: 100 },
        ok: 201,
      }),
      "webhook.create": () => ({
        method: "POST",
        path: `/webhooks`,
        body: { url: `https://hooks.example.com/created/${++counter}` },
        ok: 201,
      }),
      "webhook.update": () => ({
        method: "PATCH",
        path: `/webhooks/${take(pool.webhooks)}`,
        body: { active: false },
        ok: 200,
      }),
      "push.set": () => ({
        method: "PUT",
        path: `/push-endpoint`,
        body: { url: `https://push.example.com/${++counter}` },
        ok: 200,
      }),
      "delivery.resend": () => ({ method: "POST", path: `/deliveries/${take(pool.deliveries)}/resend`, ok: 200 }),
      "staff.create": () => ({
        method: "POST",
        path: `/staff`,
        body: { email: email("via-http"), name: "Via HTTP", password: PASSWORD, role: "support" },
        ok: 201,
      }),
      "staff.role": () => ({
        method: "PUT",
        path: `/staff/${take(pool.roleTargets)}/role`,
        body: { role: "viewer" },
        ok: 200,
      }),
      "staff.disable": () => ({
        method: "PUT",
        path: `/staff/${take(pool.disableTargets)}/disabled`,
        body: { disabled: true },
        ok: 200,
      }),
      "staff.enable": () => ({
        method: "PUT",
        path: `/staff/${take(pool.enableTargets)}/disabled`,
        body: { disabled: false },
        ok: 200,
      }),
    };

    test("every write path answers each role as the permission table says", async () => {
      const outcome: string[] = [];
      for (const [action, route] of Object.entries(routes)) {
        for (const role of ROLES) {
          const r = route();
          const res = await call(role, r.method, r.path, r.body);
          const expected = ALLOWED[action]!.includes(role) ? r.ok : 403;
          outcome.push(
            `${action} ${role} ${res.status}${res.status === expected ? "" : ` (expected ${expected}: ${JSON.stringify(res.body)})`}`,
          );
          if (expected === 403) assert.equal(res.body.code, "forbidden");
        }
      }
      assert.deepEqual(
        outcome.filter((o) => o.includes("expected")),
        [],
      );
    });

    test("a disabled member's next request is refused at once, and a demoted member's next write", async () => {
      const customerId = fresh();
      assert.equal((await call(null, "GET", `/search?q=c`, undefined, lateCookies.disabled)).status, 200);
      assert.equal(
        (
          await call(
            null,
            "POST",
            `/customers/${customerId}/balance`,
            { points: 5, reason: "Before" },
            lateCookies.demoted,
          )
        ).status,
        200,
      );
      assert.equal((await call("owner", "PUT", `/staff/${lateIds.disabled}/disabled`, { disabled: true })).status, 200);
      assert.equal((await call("owner", "PUT", `/staff/${lateIds.demoted}/role`, { role: "viewer" })).status, 200);
      // Same session cookies as a moment ago.
      // Disabling ends the account's sessions: the cookie is no session any more (401), not just a refused role.
      const refused = await call(null, "GET", `/search?q=c`, undefined, lateCookies.disabled);
      assert.equal(refused.status, 401);
      assert.equal(
        (
          await call(
            null,
            "POST",
            `/customers/${customerId}/balance`,
            { points: 5, reason: "After" },
            lateCookies.disabled,
          )
        ).status,
        401,
      );
      const page = await fetch(`${app.baseUrl}/dashboard/${world.program.programId}`, {
        headers: { cookie: lateCookies.disabled },
        redirect: "manual",
      });
      assert.notEqual(page.status, 200);
      assert.equal(await signIn(app.baseUrl, late.disabled, PASSWORD), null);
      const demoted = await call(
        null,
        "POST",
        `/customers/${customerId}/balance`,
        { points: 5, reason: "After" },
        lateCookies.demoted,
      );
      assert.equal(demoted.status, 403);
      assert.equal((await call(null, "GET", `/search?q=c`, undefined, lateCookies.demoted)).status, 200);
    });

    test("the owner cannot demote or disable themself over HTTP either; bad staff input names the field", async () => {
      assert.equal(
        (await call("owner", "PUT", `/staff/${world.staffIds.owner}/role`, { role: "manager" })).status,
        409,
      );
      assert.equal(
        (await call("owner", "PUT", `/staff/${world.staffIds.owner}/disabled`, { disabled: true })).status,
        409,
      );
      const short = await call("owner", "POST", `/staff`, {
        email: email("short"),
        name: "Short",
        password: "too short",
        role: "support",
      });
      assert.equal(short.status, 400);
      assert.deepEqual(
        short.body.errors.map((e: { path: string }) => e.path),
        ["password"],
      );
      const badUrl = await call("owner", "POST", `/webhooks`, { url: "ftp://files.example.com" });
      assert.equal(badUrl.status, 400);
      assert.deepEqual(
        badUrl.body.errors.map((e: { path: string }) => e.path),
        ["url"],
      );
      assert.equal((await call("owner", "PUT", `/staff/not-a-uuid/role`, { role: "viewer" })).status, 404);
    });

    test("manual adjustments above the role's ceiling are refused (403 adjustment_above_ceiling), write nothing, and say who may", async () => {
      const customerId = fresh(); // 100 points
      const adjust = (who: Role, points: number) =>
        call(who, "POST", `/customers/${customerId}/balance`, { points, reason: "Ceiling check" });
      const refused = async (who: Role, points: number, rule: string) => {
        const res = await adjust(who, points);
        assert.deepEqual(
          [res.status, res.body.code],
          [403, "adjustment_above_ceiling"],
          `${who} ${points}: ${JSON.stringify(res.body)}`,
        );
        assert.deepEqual(res.body.errors, [{ path: "points", message: rule }]);
      };
      // Defaults of a new program: support 10,000 and manager 1,000,000 points per adjustment, owner unlimited.
      await refused("support", 10_001, "Up to 10,000 points for support; ask a manager or owner");
      await refused("support", -10_001, "Up to 10,000 points for support; ask a manager or owner");
      await refused("support", 2_000_000, "Up to 10,000 points for support; ask an owner");
      assert.deepEqual(
        [(await adjust("support", 10_000)).body.balance],
        [10_100],
        "the refused adjustments wrote nothing",
      );
      assert.equal((await adjust("manager", 10_001)).body.balance, 20_101);
      await refused("manager", 1_000_001, "Up to 1,000,000 points for manager; ask an owner");
      assert.equal((await adjust("owner", 1_000_001)).body.balance, 1_020_102);
      if (backend === "postgres") {
        // The ceilings are the program's settings (PGlite: the CLI cannot run beside the app).
        await stack.loyalty(
          "program",
          "update",
          "--id",
          world.program.programId,
          "--adjust-ceiling-support",
          "50",
          "--adjust-ceiling-manager",
          "off",
        );
        await refused("support", 51, "Up to 50 points for support; ask a manager or owner");
        assert.equal((await adjust("manager", 5_000_000)).body.balance, 6_020_102);
        await stack.loyalty(
          "program",
          "update",
          "--id",
          world.program.programId,
          "--adjust-ceiling-support",
          "10000",
          "--adjust-ceiling-manager",
          "1000000",
        );
      }
    });

    test("revoking an API key: owner and manager only", async () => {
      for (const role of ROLES) {
        const created = await call("owner", "POST", "/api-keys", { name: `Revocable ${role}` });
        assert.equal(created.status, 201);
        const res = await call(role, "DELETE", `/api-keys/${created.body.id}`);
        assert.equal(
          res.status,
          ALLOWED["apikey.revoke"]!.includes(role) ? 200 : 403,
          `${role}: ${JSON.stringify(res.body)}`,
        );
      }
    });

    test("signed out: 401 on reads and writes; another program's staff: 403, without learning anything", async () => {
      const customerId = fresh();
      assert.equal(
        (await call(null, "POST", `/customers/${customerId}/balance`, { points: 5, reason: "Anonymous" })).status,
        401,
      );
      assert.equal((await call(null, "GET", `/search?q=c`)).status, 401);
      const forged = await call("outsider", "POST", `/customers/${customerId}/balance`, {
        points: 5,
        reason: "Other program",
      });
      assert.equal(forged.status, 403);
      assert.equal((await call("outsider", "GET", `/customers/${customerId}/transactions`)).status, 403);
      // A forged cookie is no session.
      const headers = {
        cookie: "next-auth.session-token=forged",
        "content-type": "application/json",
        origin: app.baseUrl,
      };
      const res = await fetch(`${app.baseUrl}/api/staff/${world.program.programId}/customers/${customerId}/balance`, {
        method: "POST",
        headers,
        body: JSON.stringify({ points: 5, reason: "Forged" }),
      });
      assert.equal(res.status, 401);
    });

    test("reads are open to every role of the program: search, points history", async () => {
      for (const role of ROLES) {
        const found = await call(role, "GET", `/search?q=CUSTOMER`);
        assert.equal(found.status, 200);
        assert.ok(found.body.data.length > 0);
        assert.equal((await call(role, "GET", `/customers/${customers[0]}/transactions`)).status, 200);
      }
    });

    test("a viewer's forged writes leave the customer's data and points history as they were", async () => {
      const customerId = fresh();
      const before = await call("owner", "GET", `/customers/${customerId}/transactions`);
      for (const r of [
        {
          method: "POST",
          path: `/customers/${customerId}/balance`,
          body: { points: 1000, reason: "forged by a viewer" },
        },
        { method: "PATCH", path: `/customers/${customerId}`, body: { lastName: "Forged" } },
        { method: "DELETE", path: `/customers/${customerId}` },
      ]) {
        assert.equal((await call("viewer", r.method, r.path, r.body)).status, 403);
      }
      const afterwards = await call("owner", "GET", `/customers/${customerId}/transactions`);
      assert.deepEqual(afterwards.body, before.body);
    });

    test("invalid input is refused with the field named, as on the API", async () => {
      const customerId = fresh();
      const noReason = await call("support", "POST", `/customers/${customerId}/balance`, { points: 5 });
      assert.equal(noReason.status, 400);
      assert.equal(noReason.body.code, "validation_failed");
      assert.deepEqual(
        noReason.body.errors.map((e: { path: string }) => e.path),
        ["reason"],
      );
      const badPhone = await call("support", "PATCH", `/customers/${customerId}`, { phone: "call me" });
      assert.equal(badPhone.status, 400);
      assert.deepEqual(
        badPhone.body.errors.map((e: { path: string }) => e.path),
        ["phone"],
      );
      const unknown = await call("support", "PATCH", `/customers/${customerId}`, { balance: 1_000_000 });
      assert.equal(unknown.status, 400);
    });

    test("catalogue writes: bad input is 400 validation_failed with the field path; an import chunk is all-or-nothing", async () => {
      const expectInvalid = async (method: string, path: string, body: unknown, paths: string[]) => {
        const res = await call("manager", method, path, body);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.code, "validation_failed");
        assert.deepEqual(
          res.body.errors.map((e: { path: string }) => e.path),
          paths,
        );
      };
      const poolName = `Chunks ${++counter}`;
      const created = await call("manager", "POST", "/coupon-pools", { name: poolName });
      assert.equal(created.status, 201);
      const codes = `/coupon-pools/${created.body.couponPoolId}/codes`;
      // One bad code refuses the whole chunk: the good ones before it are not imported either.
      await expectInvalid("POST", codes, { codes: ["GOOD-1", "GOOD-2", "bad code!"] }, ["codes[2]"]);
      await expectInvalid(
        "POST",
        codes,
        { codes: Array.from({ length: MAX_CODES_PER_CHUNK + 1 }, (_, i) => `BIG-${i}`) },
        ["codes"],
      );
      await expectInvalid("POST", codes, { codes: [] }, ["codes"]);
      await expectInvalid("POST", "/coupon-pools", { name: "", validDays: 0 }, ["name", "validDays"]);
      await expectInvalid("POST", "/rewards", { name: "Mug", costPoints: 10, stock: -1 }, ["stock"]);
      await expectInvalid("PATCH", `/rewards/${world.rewardId}`, { stock: 1.5 }, ["stock"]);
      await expectInvalid("POST", "/earning-flows", { key: "purchase", points: 5, pointsPerUnit: 1, param: "amount" }, [
        "points",
      ]);
      await expectInvalid("POST", "/earning-flows", { key: "purchase", pointsPerUnit: 0.1 }, ["param"]);

      const full = await call("manager", "POST", codes, {
        codes: Array.from({ length: MAX_CODES_PER_CHUNK }, (_, i) => `FULL-${i}`),
      });
      assert.deepEqual([full.status, full.body], [200, { imported: MAX_CODES_PER_CHUNK, skipped: 0 }]);
      const again = await call("manager", "POST", codes, { codes: ["FULL-0", "FULL-1", "GOOD-1"] });
      assert.deepEqual(again.body, { imported: 1, skipped: 2 }, "GOOD-1 was not left behind by the refused chunk");
      assert.equal(
        (await call("manager", "POST", `/coupon-pools/${world.other.programId}/codes`, { codes: ["X1"] })).status,
        404,
      );
      assert.equal((await call("manager", "PATCH", `/rewards/not-a-uuid`, { active: false })).status, 404);
      assert.equal((await call("manager", "POST", "/coupon-pools", { name: poolName })).status, 409);
    });
  });
}
