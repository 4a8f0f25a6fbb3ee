/**
 * Random sequences of balance operations, earning flows, recalculations, expiries and the passing of time,
 * run against the real domain layer on a real (in-memory) PostgreSQL and against a small independent model
 * of API.md §4. After every step: balance = ledger sum = lots sum ≥ 0, and the tier state equals the model's.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { AppError } from "@/lib/errors";
import { applyUserBatch } from "@/lib/domain/customers";
import { createEarningFlow, executeEarningFlow } from "@/lib/domain/earning-flows";
import { decreaseBalance, expireDuePoints, increaseBalance } from "@/lib/domain/points";
import { createProgram, updateProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";
import { recalculateDueTiers } from "@/lib/domain/tiers-engine";
import { memoryDatabase } from "../helpers/memory-db";

// ---- the model ---------------------------------------------------------------------------------------------
const TIERS = [
  { name: "Bronze", required: 0, factor: 1 },
  { name: "Silver", required: 100, factor: 1.5 },
  { name: "Gold", required: 300, factor: 2 },
];
const FLOW_POINTS = 10;
const FLOW_CAP_PER_DAY = 30;
const EXPIRY_MONTHS = 2;
const DAY = 86_400_000;

function plusMonths(d: Date, months: number): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
}
const reached = (points: number) => TIERS.reduce((best, t, i) => (t.required <= points ? i : best), 0);

class Model {
  balance = 0;
  lots: { rem: number; created: number; exp: number }[] = [];
  flowEarnings: { at: number; points: number }[] = [];
  tier = 0;
  carry: number | null = null;
  points = 0;
  carryPoints = 0;
  status: "base" | "earned" | "carried" = "base";
  constructor(public recalcAt: Date) {}

  recalcIfDue(now: number) {
    while (this.recalcAt.getTime() <= now) {
      const carry = reached(this.points);
      this.carry = carry;
      this.carryPoints = this.points;
      this.points = 0;
      this.tier = Math.max(carry, reached(0));
      this.status = this.tier === 0 ? "base" : "carried";
      this.recalcAt = plusMonths(this.recalcAt, 1);
    }
  }
  addLot(n: number, now: number) {
    this.balance += n;
    this.lots.push({ rem: n, created: now, exp: plusMonths(new Date(now), EXPIRY_MONTHS).getTime() });
  }
  earn(n: number, now: number) {
    this.recalcIfDue(now);
    this.addLot(n, now);
    this.points += n;
    const r = reached(this.points);
    if (r >= this.tier) {
      this.tier = r;
      this.status = r === 0 ? "base" : "earned";
    }
  }
  expired(now: number) {
    return this.lots.filter((l) => l.rem > 0 && l.exp <= now).reduce((s, l) => s + l.rem, 0);
  }
  expire(now: number) {
    for (const l of this.lots) if (l.exp <= now && l.rem > 0) {
      this.balance -= l.rem;
      l.rem = 0;
    }
  }
  /** false when refused (nothing changes, not even the lazy expiry, which shares the refused transaction). */
  spend(n: number, now: number): boolean {
    if (this.balance - this.expired(now) < n) return false;
    this.expire(now);
    this.balance -= n;
    let left = n;
    for (const l of [...this.lots].sort((a, b) => a.exp - b.exp || a.created - b.created)) {
      const used = Math.min(l.rem, left);
      l.rem -= used;
      left -= used;
    }
    return true;
  }
  flow(now: number): number {
    this.recalcIfDue(now);
    const dayStart = Math.floor(now / DAY) * DAY;
    const today = this.flowEarnings.filter((e) => e.at >= dayStart).reduce((s, e) => s + e.points, 0);
    const points = Math.min(Math.floor(FLOW_POINTS * TIERS[this.tier]!.factor), FLOW_CAP_PER_DAY - today);
    if (points > 0) {
      this.earn(points, now);
      this.flowEarnings.push({ at: now, points });
    }
    return Math.max(points, 0);
  }
}

// ---- the system under test ---------------------------------------------------------------------------------
let prisma: PrismaClient;
let close: () => Promise<void>;
let programId: string;
const tierIds: string[] = [];

before(async () => {
  ({ prisma, close } = await memoryDatabase());
  ({ programId } = await createProgram(prisma, { name: "Property", tierPeriodMonths: 1 }));
  await updateProgram(prisma, programId, { pointsExpiryMonths: EXPIRY_MONTHS });
  for (const t of TIERS) tierIds.push((await createTier(prisma, { programId, name: t.name, requiredPoints: t.required, factor: t.factor })).tierId);
  await createEarningFlow(prisma, { programId, key: "visit", points: FLOW_POINTS, capPerDay: FLOW_CAP_PER_DAY });
});
after(() => close());

type Op =
  | { t: "earn" | "spend" | "adjust"; n: number }
  | { t: "flow" | "recalcJob" | "expireJob" }
  | { t: "advance"; hours: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant("earn" as const), n: fc.integer({ min: 1, max: 150 }) }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("spend" as const), n: fc.integer({ min: 1, max: 150 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("adjust" as const), n: fc.integer({ min: 1, max: 50 }) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("flow" as const) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("advance" as const), hours: fc.integer({ min: 1, max: 24 * 45 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("recalcJob" as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("expireJob" as const) }) },
);

let run = 0;

async function check(customerId: string, model: Model, step: string) {
  const [row] = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT l.balance, l."tierStatus", ct."currentTierId", ct."carryTierId", ct."currentTierPoints", ct."carryTierPoints", ct."recalculationDate",
            (SELECT coalesce(sum(points), 0)::int FROM "LedgerEntry" WHERE "customerId" = $1::uuid) AS ledger,
            (SELECT coalesce(sum(remaining), 0)::int FROM "PointLot" WHERE "customerId" = $1::uuid) AS lots
     FROM "LoyaltyData" l JOIN "CustomerTier" ct ON ct."customerId" = l."customerId" WHERE l."customerId" = $1::uuid`,
    customerId,
  );
  const actual = {
    balance: row!.balance,
    ledger: row!.ledger,
    lots: row!.lots,
    tier: row!.currentTierId,
    carry: row!.carryTierId,
    points: row!.currentTierPoints,
    carryPoints: row!.carryTierPoints,
    status: row!.tierStatus,
    recalcAt: new Date(row!.recalculationDate as string).toISOString(),
  };
  const expected = {
    balance: model.balance,
    ledger: model.balance,
    lots: model.balance,
    tier: tierIds[model.tier],
    carry: model.carry === null ? null : tierIds[model.carry],
    points: model.points,
    carryPoints: model.carryPoints,
    status: model.status,
    recalcAt: model.recalcAt.toISOString(),
  };
  assert.deepEqual(actual, expected, `after ${step}`);
  assert.ok(model.balance >= 0);
}

test("ledger, lots and tiers follow the model under random operations", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
      const start = new Date(Date.UTC(2030, 0, 1 + (run % 28), 9));
      const email = `p${run++}@property.example`;
      await prisma.$transaction((tx) => applyUserBatch(tx, programId, [{ email, feature: "user", payload: {} }]));
      const { id: customerId } = (await prisma.customer.findFirst({ where: { programId, email } }))!;
      const model = new Model(plusMonths(start, 1));
      await prisma.customerTier.update({ where: { customerId }, data: { recalculationDate: model.recalcAt } });
      let now = start.getTime();
      const at = () => new Date(now);
      const move = { programId, customerId, actor: "system", now: at() };

      for (const [i, o] of ops.entries()) {
        const step = `#${i} ${JSON.stringify(o)} at ${at().toISOString()}`;
        move.now = at();
        switch (o.t) {
          case "earn":
            await prisma.$transaction((tx) => increaseBalance(tx, { ...move, points: o.n, source: "api" }));
            model.earn(o.n, now);
            break;
          case "adjust":
            await prisma.$transaction((tx) => increaseBalance(tx, { ...move, points: o.n, source: "dashboard" }));
            model.addLot(o.n, now);
            break;
          case "spend": {
            const ok = model.spend(o.n, now);
            try {
              await prisma.$transaction((tx) => decreaseBalance(tx, { ...move, points: o.n, source: "api" }));
              assert.ok(ok, `${step}: the model refuses this spend`);
            } catch (err) {
              if (!(err instanceof AppError) || err.code !== "insufficient_balance") throw err;
              assert.ok(!ok, `${step}: the model allows this spend`);
            }
            break;
          }
          case "flow": {
            const outcome = await prisma.$transaction((tx) =>
              executeEarningFlow(tx, { programId, customerId, flowKey: "visit", params: {}, actor: "system", now: at() }),
            );
            assert.equal(outcome.pointsEarned, model.flow(now), step);
            break;
          }
          case "advance":
            now += o.hours * 3_600_000;
            break;
          case "recalcJob":
            await recalculateDueTiers(prisma, { programId, now: at() });
            model.recalcIfDue(now);
            break;
          case "expireJob":
            await expireDuePoints(prisma, { programId, now: at() });
            model.expire(now);
            break;
        }
        await check(customerId, model, step);
      }
    }),
    { numRuns: 40, seed: 20261122 },
  );
});
