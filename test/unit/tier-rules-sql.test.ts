/**
 * The tier rules that also exist in SQL, for one-statement writes, agree with their TypeScript rule
 * (lib/domain/tier-rules.ts) on generated cases, on a real PostgreSQL (in-memory PGlite, every migration applied):
 *  - an earn on the hot path (ledger.ts `tierCtes`, run by lib/api/one-statement.ts `changeBalanceInOneStatement`) against `applyEarn`;
 *  - the re-evaluation after the program's tiers change (tiers.ts `REEVALUATE_SQL`, run by `reevaluateTiers`,
 *    with and without a tier being removed) against `reevaluate`.
 * Cases cover tied thresholds, a lowest tier that needs points, no tiers, tier points at the int4 limit, and states
 * the rules must take as they are (any tier, any status). The state before and after is read by the one tiers loader
 * (tiers-engine.ts `loadTierState`), so both sides see the same tiers in the same order.
 *
 * FC_SEED and FC_RUNS override the fixed seed and the number of runs.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { applyUserBatch } from "@/lib/domain/customers";
import { changeBalanceInOneStatement } from "@/lib/api/one-statement";
import { createProgram } from "@/lib/domain/programs";
import { applyEarn, reevaluate } from "@/lib/domain/tier-rules";
import { createTier, reevaluateTiers } from "@/lib/domain/tiers";
import { loadTierState } from "@/lib/domain/tiers-engine";
import { TIER_STATUSES } from "@/lib/domain/vocabulary";
import { memoryDatabase, type MemoryDatabase } from "../support/pglite-memory";

const SEED = Number(process.env.FC_SEED ?? 20261125);
const RUNS = Number(process.env.FC_RUNS ?? 60);
const INT4_MAX = 2_147_483_647;
const NOW = new Date("2031-03-10T12:00:00.000Z");
const PERIOD_END = new Date("2031-09-01T00:00:00.000Z");

let database: MemoryDatabase;
let prisma: PrismaClient;
let programs = 0;

before(async () => {
  database = await memoryDatabase();
  prisma = database.prisma;
});
after(() => database.close());

/** Thresholds from a small set, so ties (ranked by id) and a lowest tier above 0 come up often. */
const tiersArb = fc.array(fc.constantFrom(0, 0, 50, 100, 100, 250, 1000), { maxLength: 4 });

/** A tier held by index into the program's tiers as created (null: none, or an index past the last). */
const stateArb = fc.record({
  current: fc.option(fc.nat(4)),
  carry: fc.option(fc.nat(4)),
  currentTierPoints: fc.oneof(fc.nat(1200), fc.integer({ min: INT4_MAX - 1500, max: INT4_MAX })),
  carryTierPoints: fc.nat(1200),
  status: fc.constantFrom(...TIER_STATUSES),
  changedDaysAgo: fc.option(fc.nat(400)),
});
type GeneratedState = typeof stateArb extends fc.Arbitrary<infer S> ? S : never;

/** A program with the tiers and one customer per state, each customer's tier row set to its state. */
async function programWith(thresholds: number[], states: GeneratedState[]) {
  const { programId } = await createProgram(prisma, { name: `tier twins ${++programs}`, tierPeriodMonths: 6 });
  const tierIds: string[] = [];
  for (const [i, requiredPoints] of thresholds.entries())
    tierIds.push((await createTier(prisma, { programId, name: `T${i}`, requiredPoints, factor: 1 })).tierId);
  const emails = states.map((_, i) => `c${i}.p${programs}@example.com`);
  await prisma.$transaction((tx) =>
    applyUserBatch(
      tx,
      programId,
      emails.map((email) => ({ email, feature: "user" as const, payload: {} })),
    ),
  );
  const customerIds: string[] = [];
  for (const [i, s] of states.entries()) {
    const [customer] = await prisma.$queryRawUnsafe<{ id: string }[]>(
      `SELECT id FROM "Customer" WHERE "programId" = $1::uuid AND email = $2`,
      programId,
      emails[i],
    );
    const tier = (index: number | null) => (index === null ? null : (tierIds[index] ?? null));
    await prisma.$executeRawUnsafe(
      `UPDATE "CustomerTier" SET "currentTierId" = $2::uuid, "carryTierId" = $3::uuid, "currentTierPoints" = $4,
              "carryTierPoints" = $5, "tierChangedAt" = $6::timestamptz, "recalculationDate" = $7::timestamptz
       WHERE "customerId" = $1::uuid`,
      customer!.id,
      tier(s.current),
      tier(s.carry),
      s.currentTierPoints,
      s.carryTierPoints,
      s.changedDaysAgo === null ? null : new Date(NOW.getTime() - s.changedDaysAgo * 86_400_000).toISOString(),
      PERIOD_END.toISOString(),
    );
    await prisma.$executeRawUnsafe(
      `UPDATE "LoyaltyData" SET "tierStatus" = $2 WHERE "customerId" = $1::uuid`,
      customer!.id,
      s.status,
    );
    customerIds.push(customer!.id);
  }
  return { programId, tierIds, customerIds };
}

const loaded = async (programId: string, customerId: string) => {
  const tierState = await loadTierState(prisma, programId, customerId);
  assert.ok(tierState, "the customer has a tier row");
  return tierState;
};

test("an earn on the hot path (ledger.ts tierCtes) decides as applyEarn", async () => {
  await fc.assert(
    fc.asyncProperty(tiersArb, stateArb, fc.integer({ min: 1, max: 1000 }), async (thresholds, state, points) => {
      const { programId, customerIds } = await programWith(thresholds, [state]);
      const customerId = customerIds[0]!;
      const before = await loaded(programId, customerId);
      const outcome = await changeBalanceInOneStatement(
        { prisma, raw: prisma },
        { programId, customerId, points, type: "earn", source: "api", actor: "test", now: NOW },
        null,
      );
      assert.ok(outcome, "the earn ran on the hot path");
      const afterwards = await loaded(programId, customerId);
      assert.deepEqual(afterwards.state, applyEarn(before.state, before.tiers, points, NOW));
    }),
    { seed: SEED, numRuns: RUNS },
  );
});

test("the re-evaluation after tiers change (tiers.ts REEVALUATE_SQL) decides as reevaluate", async () => {
  await fc.assert(
    fc.asyncProperty(
      tiersArb,
      fc.array(stateArb, { minLength: 1, maxLength: 4 }),
      fc.option(fc.nat(3)),
      async (thresholds, states, removed) => {
        const { programId, tierIds, customerIds } = await programWith(thresholds, states);
        const without = removed === null ? undefined : tierIds[removed];
        const befores = [];
        for (const customerId of customerIds) befores.push(await loaded(programId, customerId));
        const { customersMoved } = await prisma.$transaction((tx) =>
          reevaluateTiers(tx, programId, { without, now: NOW }),
        );
        let moved = 0;
        for (const [i, customerId] of customerIds.entries()) {
          const before = befores[i]!;
          const expected = reevaluate(
            before.state,
            before.tiers.filter((t) => t.id !== without),
            NOW,
          );
          if (expected.currentTierId !== before.state.currentTierId) moved++;
          assert.deepEqual((await loaded(programId, customerId)).state, expected);
        }
        assert.equal(customersMoved, moved, "one tier.changed event per customer whose tier changed");
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
});
