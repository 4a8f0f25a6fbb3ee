/**
 * Coupon assignment, earning-flow runs and the Create/Update batch are each decided by one statement on both of
 * their paths (lib/domain/coupons.ts `ASSIGN_WRITE`, the campaign engine's `perEventShape` for a flow, customers.ts
 * `BATCH_WRITE`), on a real PostgreSQL (in-memory PGlite): the API's one-statement path (lib/api/one-statement.ts)
 * and the locked path (the domain function in a transaction) answer the same data, write the same rows and events,
 * and refuse alike.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { AppError } from "@/lib/errors";
import { applyUserBatch, type UserBatchItem } from "@/lib/domain/customers";
import { assignCoupon, createCouponPool, importCoupons, updateCouponPool } from "@/lib/domain/coupons";
import { createEarningFlow, executeEarningFlow } from "@/lib/domain/earning-flows";
import { createProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";
import {
  applyIntegrationBatchInOneStatement,
  assignCouponInOneStatement,
  executeEarningFlowInOneStatement,
} from "@/lib/api/one-statement";
import { memoryDatabase, type MemoryDatabase } from "../support/pglite-memory";

describe("Coupons, earning-flow runs and batches: one decision on both paths [pglite]", () => {
  let database: MemoryDatabase;
  let prisma: PrismaClient;
  let programId: string;
  let seq = 0;

  before(async () => {
    database = await memoryDatabase();
    prisma = database.prisma;
    ({ programId } = await createProgram(prisma, { name: "Write paths" }));
    await createTier(prisma, { programId, name: "Base", requiredPoints: 0, factor: 1 });
    await createTier(prisma, { programId, name: "Silver", requiredPoints: 50, factor: 1.5 });
  });
  after(() => database?.close());

  const refusal = (err: unknown) => (err instanceof AppError ? err.code : String(err));
  const idOf = async (email: string) =>
    (await prisma.customer.findFirstOrThrow({ where: { programId, email }, select: { id: true } })).id;
  async function customer(payload: UserBatchItem["payload"] = {}): Promise<string> {
    const email = `writer.${++seq}@example.com`;
    await prisma.$transaction((tx) => applyUserBatch(tx, programId, [{ email, feature: "user", payload }]));
    return idOf(email);
  }
  const eventsOf = async (type: string, customerId: string) =>
    (
      await prisma.event.findMany({
        where: { programId, type, data: { path: ["customerId"], equals: customerId } },
        select: { data: true },
      })
    ).map((e) => e.data);

  describe("coupon assignment", () => {
    const fast = (customerId: string, couponPoolId: string) =>
      assignCouponInOneStatement({ prisma, raw: prisma }, { programId, customerId, couponPoolId }, null);
    const locked = (customerId: string, couponPoolId: string) =>
      prisma.$transaction((tx) => assignCoupon(tx, { programId, customerId, couponPoolId }));
    const pool = async (codes: string[], validDays: number | null = 30) => {
      const { couponPoolId } = await createCouponPool(prisma, { programId, name: `Pool ${++seq}`, validDays });
      await importCoupons(prisma, couponPoolId, codes);
      return couponPoolId;
    };

    for (const validDays of [30, null]) {
      test(`valid ${validDays ?? "forever"}: both paths give a code with the same dates and event`, async () => {
        const poolId = await pool([`A${seq}X1`, `A${seq}X2`], validDays);
        const [a, b] = [await customer(), await customer()];
        const outcome = await fast(a, poolId);
        assert.ok(outcome, "the one-statement path acted");
        assert.equal(outcome.status, 201);
        const viaStatement = (JSON.parse(outcome.body!) as { coupon: Record<string, unknown> }).coupon;
        const viaLocks = await locked(b, poolId);
        assert.deepEqual(Object.keys(viaLocks), Object.keys(viaStatement));
        assert.equal(viaLocks.couponPoolId, poolId);
        assert.notEqual(viaLocks.code, viaStatement.code, "two customers, two codes");
        assert.match(viaLocks.assignedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        const days = (c: Record<string, unknown>) =>
          c.expiresAt === null ? null : (Date.parse(String(c.expiresAt)) - Date.parse(String(c.assignedAt))) / 864e5;
        assert.equal(days(viaLocks), validDays);
        assert.equal(days(viaLocks), days(viaStatement));
        const coupon = await prisma.coupon.findFirstOrThrow({ where: { poolId, code: viaLocks.code } });
        assert.equal(coupon.customerId, b);
        assert.deepEqual(await eventsOf("coupon.assigned", b), [
          { customerId: b, couponPoolId: poolId, code: viaLocks.code },
        ]);
        assert.deepEqual(await eventsOf("coupon.assigned", a), [
          { customerId: a, couponPoolId: poolId, code: viaStatement.code },
        ]);
      });
    }

    test("both paths refuse alike: an unknown pool, another program's pool, an inactive pool, an empty pool", async () => {
      const who = await customer();
      const empty = await pool([]);
      const inactive = await pool([`I${seq}X1`]);
      await updateCouponPool(prisma, programId, inactive, { active: false });
      const { programId: other } = await createProgram(prisma, { name: "Other" });
      const { couponPoolId: foreign } = await createCouponPool(prisma, { programId: other, name: "Foreign" });
      await importCoupons(prisma, foreign, ["FOREIGN1"]);
      const cases: [string, string][] = [
        [crypto.randomUUID(), "coupon_pool_not_found"],
        [foreign, "coupon_pool_not_found"],
        [inactive, "coupon_pool_inactive"],
        [empty, "coupon_pool_empty"],
      ];
      for (const [poolId, code] of cases) {
        await assert.rejects(fast(who, poolId), (e) => refusal(e) === code, `one statement: ${code}`);
        await assert.rejects(locked(who, poolId), (e) => refusal(e) === code, `locked: ${code}`);
      }
      assert.equal(await prisma.coupon.count({ where: { customerId: who } }), 0, "nothing assigned");
      assert.deepEqual(await eventsOf("coupon.assigned", who), []);
    });
  });

  describe("earning-flow runs", () => {
    const run = { params: {}, actor: "t", idempotencyKey: null, orderId: null };
    const fast = (customerId: string, flowKey: string, params: Record<string, unknown> = {}) =>
      executeEarningFlowInOneStatement(
        { prisma, raw: prisma },
        { ...run, programId, customerId, flowKey, params },
        null,
      );
    const locked = (customerId: string, flowKey: string, params: Record<string, unknown> = {}) =>
      prisma.$transaction((tx) => executeEarningFlow(tx, { ...run, programId, customerId, flowKey, params }));
    const viaStatement = async (customerId: string, flowKey: string, params?: Record<string, unknown>) => {
      const outcome = await fast(customerId, flowKey, params);
      assert.ok(outcome, "the one-statement path acted");
      const body = JSON.parse(outcome.body!) as {
        pointsEarned: number;
        balance: number;
        transaction: Record<string, unknown> | null;
        capped: Awaited<ReturnType<typeof executeEarningFlow>>["capped"];
        pending: Record<string, unknown> | null;
      };
      return { ...body, transaction: body.transaction && { ...body.transaction } };
    };
    const viaLocks = async (customerId: string, flowKey: string, params?: Record<string, unknown>) => {
      const r = await locked(customerId, flowKey, params);
      const transaction =
        r.transactionJson === null ? null : (JSON.parse(r.transactionJson) as Record<string, unknown>);
      const pending = r.pendingJson === null ? null : (JSON.parse(r.pendingJson) as Record<string, unknown>);
      return { pointsEarned: r.pointsEarned, balance: r.balance, transaction, capped: r.capped, pending };
    };
    const shared = (o: Awaited<ReturnType<typeof viaLocks>>) => ({
      ...o,
      transaction: o.transaction && { ...o.transaction, id: 0, customerId: 0, createdAt: 0, expiresAt: 0 },
    });
    const flow = async (definition: Partial<Parameters<typeof createEarningFlow>[1]>) => {
      const key = `flow-${++seq}`;
      await createEarningFlow(prisma, { programId, key, points: 20, ...definition });
      return key;
    };

    test("runs through the caps (per unit, tier factor, cap_total, once): the same answers on both paths", async () => {
      const perUnit = await flow({ points: null, pointsPerUnit: 2, param: "units", capTotal: 70 });
      const once = await flow({ points: 5, once: true });
      const [a, b] = [await customer(), await customer()];
      // 30 × 2 = 60: Silver (factor 1.5) from here on; then 10 left of the cap; then nothing; then once, twice.
      const steps: [string, Record<string, unknown>][] = [
        [perUnit, { units: 30 }],
        [perUnit, { units: 30 }],
        [perUnit, { units: 1 }],
        [once, {}],
        [once, {}],
      ];
      const answers: string[] = [];
      for (const [key, params] of steps) {
        const x = await viaStatement(a, key, params);
        const y = await viaLocks(b, key, params);
        assert.deepEqual(shared(y), shared(x), `${key} ${JSON.stringify(params)}`);
        answers.push(`${y.pointsEarned}/${y.balance}/${y.capped}`);
      }
      assert.deepEqual(answers, ["60/60/null", "10/70/cap_total", "0/70/cap_total", "7/77/null", "0/77/once"]);
      const entries = async (c: string) =>
        (await prisma.ledgerEntry.findMany({ where: { customerId: c }, orderBy: { createdAt: "asc" } })).map((e) => [
          e.type,
          e.points,
          e.source,
          e.reason,
          e.metadata,
        ]);
      assert.deepEqual(await entries(b), await entries(a));
    });

    test("both paths refuse alike: an unknown flow, an inactive one, params that do not match", async () => {
      const who = await customer();
      const perUnit = await flow({ points: null, pointsPerUnit: 1, param: "units" });
      const off = await flow({});
      await prisma.earningFlow.updateMany({ where: { programId, key: off }, data: { active: false } });
      const cases: [string, Record<string, unknown>, string][] = [
        ["no-such-flow", {}, "earning_flow_not_found"],
        [off, {}, "earning_flow_not_found"],
        [perUnit, {}, "validation_failed"],
        [perUnit, { units: -1 }, "validation_failed"],
      ];
      for (const [key, params, code] of cases) {
        await assert.rejects(fast(who, key, params), (e) => refusal(e) === code, `one statement: ${key} ${code}`);
        await assert.rejects(locked(who, key, params), (e) => refusal(e) === code, `locked: ${key} ${code}`);
      }
      assert.equal(await prisma.ledgerEntry.count({ where: { customerId: who } }), 0);
    });

    test("a run that completes a referral: the one statement hands over, the locked path completes it", async () => {
      await prisma.program.update({
        where: { id: programId },
        data: { referralReferrerPoints: 100, referralReferredPoints: 40, referralMinEarnPoints: 20 },
      });
      try {
        const referrer = await customer();
        const { referralCode } = await prisma.customer.findUniqueOrThrow({ where: { id: referrer } });
        const referred = await customer({ referralCode: referralCode! });
        const small = await flow({ points: 10 });
        const big = await flow({ points: 20 });
        // Below the minimum: no referral due, the statement acts.
        assert.equal((await viaStatement(referred, small)).pointsEarned, 10);
        assert.equal(await fast(referred, big), null, "referral_due: handed over to the locked path");
        assert.equal(await prisma.ledgerEntry.count({ where: { customerId: referred } }), 1, "nothing written");
        const done = await viaLocks(referred, big);
        assert.deepEqual([done.pointsEarned, done.balance, done.capped], [20, 30, null]);
        const referral = await prisma.referral.findFirstOrThrow({ where: { referredId: referred } });
        assert.ok(referral.completedAt);
        assert.deepEqual([referral.referrerPoints, referral.referredPoints], [100, 40]);
        const balance = async (c: string) =>
          (await prisma.loyaltyData.findFirstOrThrow({ where: { customerId: c } })).balance;
        assert.equal(await balance(referred), 70);
        assert.equal(await balance(referrer), 100);
        assert.equal((await eventsOf("referral.completed", referred)).length, 1);
        assert.equal((await eventsOf("referral.completed", referrer)).length, 1);
        // Completed once: the next run is the statement's again (70 points reached Silver: 20 × 1.5).
        assert.equal((await viaStatement(referred, big)).pointsEarned, 30);
      } finally {
        await prisma.program.update({ where: { id: programId }, data: { referralMinEarnPoints: 1 } });
      }
    });
  });

  describe("Create/Update batches", () => {
    test("new and existing customers: the same rows and events on both paths", async () => {
      const ext = (s: string) => `ext-${s}-${seq}`;
      const existing = [`batch.${++seq}.a@example.com`, `batch.${seq}.b@example.com`];
      await prisma.$transaction((tx) =>
        applyUserBatch(
          tx,
          programId,
          existing.map((email) => ({ email, feature: "user", payload: { firstName: "Old" } })),
        ),
      );
      const items = (email: string, fresh: string): UserBatchItem[] => [
        { email, feature: "user", payload: { lastName: "Changed", phone: null } },
        { email: fresh, feature: "user", payload: { firstName: "New", emailVerified: true } },
        { email: fresh, feature: "user", payload: { externalCustomerId: ext(fresh) } },
      ];
      const fresh = [`batch.${seq}.c@example.com`, `batch.${seq}.d@example.com`];
      const outcome = await applyIntegrationBatchInOneStatement(
        { prisma, raw: prisma },
        programId,
        items(existing[0]!, fresh[0]!),
        null,
      );
      assert.ok(outcome, "the one-statement path acted");
      assert.equal(outcome.status, 201);
      const viaLocks = await prisma.$transaction((tx) => applyUserBatch(tx, programId, items(existing[1]!, fresh[1]!)));
      assert.deepEqual(viaLocks, { created: 1 });
      const state = async (email: string) => {
        const c = await prisma.customer.findFirstOrThrow({
          where: { programId, email },
          include: { userData: true, loyaltyData: true, customerTier: true },
        });
        const events = (await eventsOf("customer.created", c.id)).concat(await eventsOf("customer.updated", c.id));
        return {
          user: {
            ...c.userData!,
            id: 0,
            customerId: 0,
            createdAt: 0,
            updatedAt: 0,
            externalCustomerId: !!c.userData!.externalCustomerId,
          },
          balance: c.loyaltyData!.balance,
          tier: c.customerTier!.currentTierId,
          events: events.map((e) => ({ ...(e as object), customerId: 0, email: 0 })),
        };
      };
      assert.deepEqual(await state(existing[1]!), await state(existing[0]!));
      assert.deepEqual(await state(fresh[1]!), await state(fresh[0]!));
      assert.equal((await state(fresh[1]!)).user.firstName, "New");
      assert.equal((await state(existing[1]!)).user.lastName, "Changed");
    });
  });
});
