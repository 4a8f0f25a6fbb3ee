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
 *  - the report read from the aggregates equals the report computed from the ledger alone;
 *  - active members (the Overview's distinct count of a period, kept per day as counts of those active within the k
 *    days before): for periods starting on every day, from the aggregates and from the ledger alone, the count is the
 *    distinct count of the customers with a non-expiry entry in the period (before their erasure).
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
  readDays,
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

/**
 * For a period starting on every `step`-th day of the history, split in two (as the Overview reads a period and the one
 * before it): the sum of the days' new active members = the distinct count of the period's active customers.
 */
async function checkActive(programId: string, zone: string, from: string, to: string, label: string, step = 2) {
  const next = (day: string, n: number) =>
    new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  for (let a = from; a <= to; a = next(a, step)) {
    const span = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
    const mid = next(a, Math.floor(span / 2) + 1) <= to ? next(a, Math.floor(span / 2) + 1) : to;
    const periods = mid > a ? [a, mid] : [a];
    const read = await readDays(prisma, programId, a, to, a, periods);
    for (const [i, start] of periods.entries()) {
      const end = i + 1 < periods.length ? next(periods[i + 1]!, -1) : to;
      let sum = 0;
      for (const [day, r] of read.byDay) if (day >= start && day <= end) sum += r.activeNew ?? 0;
      const [{ n }] = (await prisma.$queryRawUnsafe(
        `SELECT count(DISTINCT e."customerId")::int AS n FROM "LedgerEntry" e JOIN "Customer" c ON c.id = e."customerId"
         WHERE e."programId" = $1::uuid AND e.type <> 'expire' AND (c."deletedAt" IS NULL OR e."createdAt" <= c."deletedAt")
           AND e."createdAt" >= ($2::date)::timestamp AT TIME ZONE $4::text
           AND e."createdAt" < ($3::date + 1)::timestamp AT TIME ZONE $4::text`,
        programId,
        start,
        end,
        zone,
      )) as [{ n: number }];
      assert.equal(sum, n, `${label}: active members ${start}..${end}`);
    }
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
             "erasedMembers", "activeMembers", "activeRecent"
           FROM "PointsDay" WHERE "programId" = $1::uuid ORDER BY day`,
          programId,
        );
        const recomputed = await ledgerDays(prisma, programId, zone, "2030-01-01", to);
        assert.deepEqual(
          rolled.map((r) =>
            Object.fromEntries(
              Object.entries(r).map(([k, v]) => [
                k,
                k === "day" ? v : k === "activeRecent" ? (v as unknown[]).map(Number) : Number(v),
              ]),
            ),
          ),
          recomputed,
          "the rolled-up days are the ledger's",
        );
        await checkActive(programId, zone, from, to, "aggregates");
        const fullyRolled = await pointsAccounting(prisma, programId, from, to);
        const { rolledUpThrough: _a, ...a } = fullyRolled;
        await prisma.$executeRawUnsafe(`DELETE FROM "PointsRollup" WHERE "programId" = $1::uuid`, programId);
        const fromLedger = await pointsAccounting(prisma, programId, from, to);
        assert.equal(fromLedger.rolledUpThrough, null);
        await checkActive(programId, zone, from, to, "ledger");
        const { rolledUpThrough: _b, ...b } = fromLedger;
        assert.deepEqual(a, b, "the report from the aggregates is the report from the ledger");
        const { rolledUpThrough: _c, ...c } = fromAggregates;
        assert.deepEqual(c, b, "the report read mid-rollup is the same");
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
});

test("active members of any period, from the days, are the distinct count of the ledger's", async () => {
  const actArb = fc.oneof(
    { weight: 6, arbitrary: fc.record({ t: fc.constant("earn" as const), c: fc.nat(5), hours: fc.nat(120) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("erase" as const), c: fc.nat(5) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("rollup" as const) }) },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...ZONES),
      fc.array(actArb, { minLength: 5, maxLength: 40 }),
      async (zone, acts) => {
        run++;
        const { programId } = await createProgram(prisma, { name: `active ${run}`, tierPeriodMonths: 12 });
        await updateProgram(prisma, programId, { pointsExpiryMonths: 1, timeZone: zone });
        const emails = Array.from({ length: 6 }, (_, i) => `c${i}.active${run}@example.com`);
        await prisma.$transaction((tx) =>
          applyUserBatch(
            tx,
            programId,
            emails.map((email) => ({ email, feature: "user" as const, payload: {} })),
          ),
        );
        const rows = await prisma.customer.findMany({ where: { programId }, select: { id: true, email: true } });
        const ids = emails.map((e) => rows.find((r) => r.email === e)!.id);
        const start = Date.parse("2030-03-01T10:00:00Z");
        let now = start;
        const erased = new Set<number>();
        for (const a of acts) {
          const at = new Date(now);
          if (a.t === "earn") {
            now += a.hours * HOUR;
            if (erased.has(a.c)) continue;
            await prisma.$transaction((tx) =>
              increaseBalance(tx, {
                programId,
                customerId: ids[a.c]!,
                points: 10,
                source: "api",
                actor: "test",
                now: at,
              }),
            );
          } else if (a.t === "erase" && !erased.has(a.c)) {
            await onProgramClock(programId, at, () =>
              prisma.$transaction((tx) => deleteCustomers(tx, programId, [emails[a.c]!])),
            );
            erased.add(a.c);
          } else if (a.t === "rollup") await rollUpPoints(prisma, programId, at);
        }
        // Expiry entries (not activity) after the last earn, some on days with activity.
        now += 40 * 24 * HOUR;
        await expireDuePoints(prisma, { programId, now: new Date(now) });
        const from = dayIn(start, zone);
        const to = dayIn(now, zone);
        await checkActive(programId, zone, from, to, "part rolled up", 1);
        await rollUpPoints(prisma, programId, new Date(now + 2 * 24 * HOUR));
        await checkActive(programId, zone, from, to, "aggregates", 1);
        await prisma.$executeRawUnsafe(`DELETE FROM "PointsRollup" WHERE "programId" = $1::uuid`, programId);
        await checkActive(programId, zone, from, to, "ledger", 3);
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
});
