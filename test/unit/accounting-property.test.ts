/**
 * Property (issue 27, lib/domain/accounting.ts): on generated histories — earns, spends, dashboard adjustments up and
 * down, reversals of earns, spends and adjustments, points expiry, erasures, time moving forward across days in a
 * random time zone, and the rollup job run at random moments on the program clock — against the real domain layer on
 * a real PostgreSQL (in-memory PGlite, every migration applied):
 *  - for every day, closing = opening + earned − reversed − redeemed + redemptionsCancelled − expired + adjusted, the
 *    next day opens at this closing, and the money columns are points × value exactly;
 *  - the last closing equals the sum of the balances of the customers not erased;
 *  - the rolled-up days (PointsDay) equal a recomputation from the ledger, after the reversals, expiry and erasures
 *    written since they were rolled up;
 *  - the report read from the aggregates equals the report computed from the ledger alone.
 *
 * FC_SEED and FC_RUNS override the fixed seed and the number of runs.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { AppError } from "@/lib/errors";
import { applyUserBatch } from "@/lib/domain/customers";
import { deleteCustomers } from "@/lib/domain/deletion";
import { onProgramClock } from "@/lib/domain/clock";
import { decreaseBalance, expireDuePoints, increaseBalance } from "@/lib/domain/points";
import { createProgram, updateProgram } from "@/lib/domain/programs";
import { reverseEntry } from "@/lib/domain/reversals";
import {
  ledgerDays,
  pointsAccounting,
  rollUpPoints,
  setPointValue,
  type PointsAccounting,
} from "@/lib/domain/accounting";
import { moneyOf, parsePointValue } from "@/lib/domain/point-value";
import { memoryDatabase, type MemoryDatabase } from "../support/pglite-memory";

const SEED = Number(process.env.FC_SEED ?? 20261126);
const RUNS = Number(process.env.FC_RUNS ?? 12);
const HOUR = 3_600_000;
const ZONES = ["UTC", "Europe/Madrid", "Pacific/Auckland", "America/Los_Angeles"] as const;

type Op =
  | { t: "inc"; c: number; points: number; dashboard: boolean }
  | { t: "dec"; c: number; points: number; dashboard: boolean }
  | { t: "rev"; pick: number; partial: boolean }
  | { t: "expire" }
  | { t: "erase"; c: number }
  | { t: "wait"; hours: number }
  | { t: "rollup" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("inc" as const),
      c: fc.nat(9),
      points: fc.integer({ min: 1, max: 500 }),
      dashboard: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("dec" as const),
      c: fc.nat(9),
      points: fc.integer({ min: 1, max: 300 }),
      dashboard: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("rev" as const), pick: fc.nat(), partial: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("expire" as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("erase" as const), c: fc.nat(9) }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("wait" as const), hours: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("rollup" as const) }) },
);

let db: MemoryDatabase;
let prisma: PrismaClient;
before(async () => {
  db = await memoryDatabase();
  prisma = db.prisma;
});
after(() => db.close());

const dayIn = (t: number, zone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(t);

function checkBooks(report: PointsAccounting, label: string) {
  const value = report.pointValue === null ? null : parsePointValue(report.pointValue);
  let previous: number | null = null;
  for (const d of report.days) {
    const expected =
      d.openingOutstanding + d.earned - d.reversed - d.redeemed + d.redemptionsCancelled - d.expired + d.adjusted;
    assert.equal(d.closingOutstanding, expected, `${label} ${d.day}: closing = opening + flows`);
    if (previous !== null) assert.equal(d.openingOutstanding, previous, `${label} ${d.day}: opens at the last closing`);
    previous = d.closingOutstanding;
    if (value !== null) {
      assert.equal(d.money!.closingOutstanding, moneyOf(d.closingOutstanding, value), `${label} ${d.day}: money`);
      assert.equal(d.money!.adjusted, moneyOf(d.adjusted, value));
    }
    for (const k of ["earned", "reversed", "redeemed", "redemptionsCancelled", "expired", "erased"] as const)
      assert.ok(d[k] >= 0, `${label} ${d.day}: ${k} ≥ 0`);
  }
}

let run = 0;
test("the books balance every day, close on the balances, and the aggregates equal the ledger", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...ZONES),
      fc.constantFrom(null, 1),
      fc.integer({ min: 2, max: 6 }),
      fc.array(opArb, { minLength: 8, maxLength: 45 }),
      async (zone, expiryMonths, customers, ops) => {
        run++;
        const { programId } = await createProgram(prisma, { name: `accounting ${run}`, tierPeriodMonths: 12 });
        await updateProgram(prisma, programId, { pointsExpiryMonths: expiryMonths, timeZone: zone });
        const emails = Array.from({ length: customers }, (_, i) => `c${i}.acct${run}@example.com`);
        await prisma.$transaction((tx) =>
          applyUserBatch(
            tx,
            programId,
            emails.map((email) => ({ email, feature: "user" as const, payload: {} })),
          ),
        );
        const start = Date.parse("2030-03-01T10:00:00Z");
        await prisma.$executeRawUnsafe(
          `UPDATE "Customer" SET "createdAt" = $2::timestamptz WHERE "programId" = $1::uuid`,
          programId,
          new Date(start).toISOString(),
        );
        const rows = await prisma.customer.findMany({ where: { programId }, select: { id: true, email: true } });
        const ids = emails.map((e) => rows.find((r) => r.email === e)!.id);
        const erased = new Set<number>();
        const entries: { id: string; customer: number }[] = [];
        let now = start;

        for (const op of ops) {
          const at = new Date(now);
          const c = "c" in op ? op.c % customers : 0;
          const base = { programId, customerId: ids[c]!, actor: "test", now: at };
          try {
            switch (op.t) {
              case "inc":
              case "dec": {
                if (erased.has(c)) break;
                const change = op.t === "inc" ? increaseBalance : decreaseBalance;
                const source = op.dashboard ? ("dashboard" as const) : ("api" as const);
                const r = await prisma.$transaction((tx) => change(tx, { ...base, points: op.points, source }));
                entries.push({ id: JSON.parse(r.entryJson).id, customer: c });
                break;
              }
              case "rev": {
                const live = entries.filter((e) => !erased.has(e.customer));
                if (live.length === 0) break;
                const e = live[op.pick % live.length]!;
                await prisma.$transaction((tx) =>
                  reverseEntry(tx, {
                    programId,
                    customerId: ids[e.customer]!,
                    transactionId: e.id,
                    points: op.partial ? 1 : undefined,
                    reason: "property",
                    source: "api",
                    actor: "test",
                    now: at,
                  }),
                );
                break;
              }
              case "expire":
                await expireDuePoints(prisma, { programId, now: at });
                break;
              case "erase":
                if (erased.has(c)) break;
                await onProgramClock(programId, at, () =>
                  prisma.$transaction((tx) => deleteCustomers(tx, programId, [emails[c]!])),
                );
                erased.add(c);
                break;
              case "wait":
                now += op.hours * HOUR;
                break;
              case "rollup":
                await rollUpPoints(prisma, programId, at);
                break;
            }
          } catch (err) {
            // Refusals (insufficient points, nothing left to reverse, not reversible) change nothing.
            if (!(err instanceof AppError) || err.status >= 500) throw err;
          }
        }
        // Expiry months later, so that lots expire within the history's reach.
        now += 40 * 24 * HOUR;
        await expireDuePoints(prisma, { programId, now: new Date(now) });

        const from = dayIn(start, zone);
        const to = dayIn(now, zone);
        await setPointValue(prisma, programId, { currency: "EUR", pointValue: "0.013" });
        const fromAggregates = await pointsAccounting(prisma, programId, from, to);
        checkBooks(fromAggregates, "aggregates");
        const [{ sum }] = (await prisma.$queryRawUnsafe<{ sum: number }[]>(
          `SELECT coalesce(sum(l.balance), 0)::int AS sum FROM "LoyaltyData" l JOIN "Customer" c ON c.id = l."customerId"
           WHERE c."programId" = $1::uuid AND c."deletedAt" IS NULL`,
          programId,
        )) as [{ sum: number }];
        assert.equal(fromAggregates.days.at(-1)!.closingOutstanding, sum, "the last closing is the sum of balances");
        assert.equal(fromAggregates.totals.closingOutstanding, sum);
        assert.equal(fromAggregates.days[0]!.openingOutstanding, 0, "nothing before the first day");

        // Everything rolled up now (the last days included), then compared with the ledger computed afresh.
        await rollUpPoints(prisma, programId, new Date(now + 2 * 24 * HOUR));
        const rolled = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(
          `SELECT to_char(day, 'YYYY-MM-DD') AS day, earned::float8, "pendingCreated"::float8, "pendingMatured"::float8,
             "pendingCancelled"::float8, reversed::float8, redeemed::float8, "redemptionsCancelled"::float8,
             expired::float8, "adjustedUp"::float8, "adjustedDown"::float8, erased::float8, redemptions, "newMembers",
             "erasedMembers"
           FROM "PointsDay" WHERE "programId" = $1::uuid ORDER BY day`,
          programId,
        );
        const recomputed = await ledgerDays(prisma, programId, zone, "2030-01-01", to);
        assert.deepEqual(
          rolled.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === "day" ? v : Number(v)]))),
          recomputed,
          "the rolled-up days are the ledger's",
        );
        const fullyRolled = await pointsAccounting(prisma, programId, from, to);
        const { rolledUpThrough: _a, ...a } = fullyRolled;
        await prisma.$executeRawUnsafe(`DELETE FROM "PointsRollup" WHERE "programId" = $1::uuid`, programId);
        const fromLedger = await pointsAccounting(prisma, programId, from, to);
        assert.equal(fromLedger.rolledUpThrough, null);
        const { rolledUpThrough: _b, ...b } = fromLedger;
        assert.deepEqual(a, b, "the report from the aggregates is the report from the ledger");
        const { rolledUpThrough: _c, ...c } = fromAggregates;
        assert.deepEqual(c, b, "the report read mid-rollup is the same");
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
});
