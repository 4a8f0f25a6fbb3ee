/**
 * A redemption is decided by one statement (lib/domain/rewards.ts `redeemWrite`) on both of its paths, on a real
 * PostgreSQL (in-memory PGlite): the API's one-statement path acts for every kind of reward (an unlimited one too,
 * instead of handing it over to the locked path), and the locked path (`redeemReward`, in a transaction) answers the
 * same data, writes its caller's source on the ledger entry, and refuses in the same order.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { AppError } from "@/lib/errors";
import { applyUserBatch } from "@/lib/domain/customers";
import { increaseBalance } from "@/lib/domain/points";
import { createProgram } from "@/lib/domain/programs";
import { createReward, redeemReward, type RewardInput } from "@/lib/domain/rewards";
import { createTier } from "@/lib/domain/tiers";
import { redeemRewardInOneStatement } from "@/lib/api/one-statement";
import { memoryDatabase, type MemoryDatabase } from "../support/pglite-memory";

describe("A redemption, one decision on both paths [pglite]", () => {
  let database: MemoryDatabase;
  let prisma: PrismaClient;
  let programId: string;
  let baseId: string;
  let goldId: string;
  let seq = 0;

  before(async () => {
    database = await memoryDatabase();
    prisma = database.prisma;
    ({ programId } = await createProgram(prisma, { name: "Redemptions" }));
    ({ tierId: baseId } = await createTier(prisma, { programId, name: "Base", requiredPoints: 0, factor: 1 }));
    ({ tierId: goldId } = await createTier(prisma, { programId, name: "Gold", requiredPoints: 5000, factor: 1 }));
  });
  after(() => database?.close());

  async function customer(points: number): Promise<string> {
    const email = `redeemer.${++seq}@example.com`;
    await prisma.$transaction((tx) => applyUserBatch(tx, programId, [{ email, feature: "user", payload: {} }]));
    const { id } = (await prisma.customer.findFirst({ where: { programId, email }, select: { id: true } }))!;
    await prisma.$transaction((tx) =>
      increaseBalance(tx, { programId, customerId: id, points, source: "api", actor: "t" }),
    );
    return id;
  }
  const reward = async (extra: Partial<RewardInput> = {}) =>
    (await createReward(prisma, { programId, name: `Reward ${++seq}`, costPoints: 10, ...extra })).rewardId;
  const fast = (customerId: string, rewardId: string) =>
    redeemRewardInOneStatement(
      { prisma, raw: prisma },
      { programId, customerId, rewardId, actor: "t", metadata: { till: 3 } },
      null,
    );
  const locked = (customerId: string, rewardId: string, source: "api" | "dashboard" = "dashboard") =>
    prisma.$transaction((tx) =>
      redeemReward(tx, { programId, customerId, rewardId, actor: "t", source, metadata: { till: 3 } }),
    );
  const refusal = (err: unknown) => (err instanceof AppError ? err.code : String(err));

  const kinds: [string, () => Partial<RewardInput>][] = [
    ["unlimited", () => ({})],
    ["limited", () => ({ stock: 5 })],
    ["limited, with per-customer rules", () => ({ stock: 5, perCustomerLimit: 2, minTierId: baseId })],
  ];
  for (const [kind, extra] of kinds) {
    test(`${kind}: the one-statement path acts, and the locked path answers the same data`, async () => {
      const rewardId = await reward(extra());
      const [a, b] = [await customer(100), await customer(100)];
      const outcome = await fast(a, rewardId);
      assert.ok(outcome, "the one-statement path acted (no hand-over to the locked path)");
      assert.equal(outcome.status, 201);
      const viaStatement = JSON.parse(outcome.body!) as { redemption: Record<string, unknown>; balance: number };
      const viaLocks = await locked(b, rewardId);
      assert.deepEqual(Object.keys(viaLocks.redemption).sort(), Object.keys(viaStatement.redemption).sort());
      const shared = (r: Record<string, unknown>) => ({
        ...r,
        id: 0,
        customerId: 0,
        code: 0,
        transactionId: 0,
        createdAt: 0,
      });
      assert.deepEqual(shared(viaLocks.redemption), shared(viaStatement.redemption));
      assert.equal(viaLocks.balance, viaStatement.balance);
      assert.equal(viaLocks.redemption.customerId, b);
      assert.match(viaLocks.redemption.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const entry = await prisma.ledgerEntry.findUniqueOrThrow({ where: { id: viaLocks.redemption.transactionId } });
      assert.deepEqual([entry.type, entry.points, entry.source], ["redeem", -10, "dashboard"]);
      const events = await prisma.event.count({
        where: { programId, type: "reward.redeemed", data: { path: ["redemptionId"], equals: viaLocks.redemption.id } },
      });
      assert.equal(events, 1);
    });
  }

  test("the locked path refuses in the statement's order, and takes nothing when it refuses", async () => {
    const poor = await customer(5);
    const last = await reward({ stock: 1, perCustomerLimit: 1 });
    const gold = await reward({ minTierId: goldId, costPoints: 1 });
    const rich = await customer(100);
    await assert.rejects(locked(poor, last), (e) => refusal(e) === "insufficient_balance");
    assert.equal((await prisma.reward.findUniqueOrThrow({ where: { id: last } })).stock, 1, "no unit taken");
    await locked(rich, last);
    await assert.rejects(locked(rich, last), (e) => refusal(e) === "reward_out_of_stock"); // before the limit
    await assert.rejects(locked(rich, gold), (e) => refusal(e) === "reward_tier_required");
    await assert.rejects(locked(rich, crypto.randomUUID()), (e) => refusal(e) === "reward_not_found");
  });
});
