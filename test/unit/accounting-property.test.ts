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
 *    distinct count of the customers with a non-expiry entry in the period (before their erasure);
 *  - the day so far (PointsToday, rolled up with the closed days) plus the ledger since it: after every operation, the
 *    days a report computes after the last closed one equal their recomputation from the ledger, active members and
 *    their recent counts included;
 *  - a test program whose clock was moved: its report with the day so far of an earlier day, before and after the job
 *    ran on the new clock, and with a stale day so far left behind, equals the report from the ledger alone.
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
  rollUpDuePrograms,
  rollUpPoints,
  setPointValue,
  type PointsAccounting,
} from "@/lib/domain/accounting";
import { moneyOf, parsePointValue } from "@/lib/domain/point-value";
import { advanceClock } from "@/lib/domain/program-clock";
import { programReport } from "@/lib/staff/queries/reports";
import { resolveRange } from "@/lib/staff/report-range";
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
  | { t: "later"; minutes: number }
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
  // Moments within a day: the day so far (rolled up 15 minutes behind its job) and writes before and after it.
  { weight: 3, arbitrary: fc.record({ t: fc.constant("later" as const), minutes: fc.integer({ min: 1, max: 90 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("rollup" as const) }) },
);

let db: MemoryDatabase;
let prisma: PrismaClient;
before(async () => {
  db = await memoryDatabase();
  prisma = db.prisma;
});
after(() => db.close());

/** The program's new customers with these e-mails (one user batch), their ids in the e-mails' order. */
async function addCustomers(programId: string, emails: string[]): Promise<string[]> {
  await prisma.$transaction((tx) =>
    applyUserBatch(
      tx,
      programId,
      emails.map((email) => ({ email, feature: "user" as const, payload: {} })),
    ),
  );
  const rows = await prisma.customer.findMany({ where: { programId }, select: { id: true, email: true } });
  return emails.map((e) => rows.find((r) => r.email === e)!.id);
}

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

/**
 * The property's reach: how many checks read a day so far with entries written since it, and how many of those with
 * a day so far whose active customers had been active on earlier days (its recent counts not empty).
 */
const reach = { since: 0, recent: 0 };

/**
 * The days after the last closed one as a report reads them (the day so far plus the ledger since, when there is one
 * for the day after it) equal the ledger's days recomputed, with their active members and recent counts.
 */
async function checkToday(programId: string, zone: string, to: string, label: string) {
  const [state] = await prisma.$queryRawUnsafe<
    { through: string | null; day: string | null; asOf: Date | null; recent: number | null }[]
  >(
    `SELECT to_char(r."throughDay", 'YYYY-MM-DD') AS through, to_char(t.day, 'YYYY-MM-DD') AS day, t."asOf",
       cardinality(t."activeRecent") AS recent
     FROM "Program" p LEFT JOIN "PointsRollup" r ON r."programId" = p.id LEFT JOIN "PointsToday" t ON t."programId" = p.id
     WHERE p.id = $1::uuid`,
    programId,
  );
  if (!state?.through) return;
  const from = new Date(Date.parse(`${state.through}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  if (from > to) return;
  const read = await readDays(prisma, programId, from, to, from, [from]);
  const got = [...read.byDay.values()].map(({ activeNew: _n, ...r }) => r).sort((a, b) => (a.day < b.day ? -1 : 1));
  assert.deepEqual(
    got,
    await ledgerDays(prisma, programId, zone, from, to),
    `${label}: the days since ${state.through}`,
  );
  if (state.day === from && state.asOf) {
    const [{ n }] = (await prisma.$queryRawUnsafe(
      `SELECT count(*)::int AS n FROM "LedgerEntry" WHERE "programId" = $1::uuid AND "createdAt" >= $2::timestamptz`,
      programId,
      state.asOf,
    )) as [{ n: number }];
    if (n > 0) reach.since++;
    if (n > 0 && Number(state.recent) > 0) reach.recent++;
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
        const ids = await addCustomers(programId, emails);
        const start = Date.parse("2030-03-01T10:00:00Z");
        await prisma.$executeRawUnsafe(
          `UPDATE "Customer" SET "createdAt" = $2::timestamptz WHERE "programId" = $1::uuid`,
          programId,
          new Date(start).toISOString(),
        );
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
              case "later":
                now += op.minutes * 60_000;
                break;
              case "rollup":
                await rollUpPoints(prisma, programId, at);
                break;
            }
          } catch (err) {
            // Refusals (insufficient points, nothing left to reverse, not reversible) change nothing.
            if (!(err instanceof AppError) || err.status >= 500) throw err;
          }
          await checkToday(programId, zone, dayIn(now, zone), `after ${op.t}`);
        }
        // Expiry months later, so that lots expire within the history's reach.
        now += 40 * 24 * HOUR;
        await expireDuePoints(prisma, { programId, now: new Date(now) });

        const from = dayIn(start, zone);
        const to = dayIn(now, zone);
        await checkToday(programId, zone, to, "after the history");
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
  assert.ok(reach.since > 0, "some checks read a day so far with entries written since it");
});

test("active members of any period, from the days, are the distinct count of the ledger's", async () => {
  const actArb = fc.oneof(
    // Hours to the next act: often within the day (a day so far with customers in it), else up to five days.
    {
      weight: 6,
      arbitrary: fc.record({ t: fc.constant("earn" as const), c: fc.nat(5), hours: fc.oneof(fc.nat(3), fc.nat(120)) }),
    },
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
        const ids = await addCustomers(programId, emails);
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
          await checkToday(programId, zone, dayIn(now, zone), `after ${a.t}`);
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
  assert.ok(reach.recent > 0, "some checks read a day so far whose customers had been active before it");
});

test("a test program whose clock was moved: its day so far counts for its own day only", async () => {
  const zone = "Europe/Madrid";
  const { programId } = await createProgram(prisma, {
    name: "clocked accounting",
    test: true,
    clockAt: new Date("2030-05-10T12:00:00Z"),
    tierPeriodMonths: 12,
  });
  await updateProgram(prisma, programId, { pointsExpiryMonths: 1, timeZone: zone });
  const emails = ["a", "b", "c"].map((k) => `${k}.clocked@example.com`);
  const [a, b, c] = (await addCustomers(programId, emails)) as [string, string, string];
  const earn = (customerId: string, at: string) =>
    prisma.$transaction((tx) =>
      increaseBalance(tx, { programId, customerId, points: 10, source: "api", actor: "test", now: new Date(at) }),
    );
  const state = async () =>
    (
      await prisma.$queryRawUnsafe<{ through: string; day: string; asOf: Date }[]>(
        `SELECT to_char(r."throughDay", 'YYYY-MM-DD') AS through, to_char(t.day, 'YYYY-MM-DD') AS day, t."asOf"
         FROM "PointsRollup" r JOIN "PointsToday" t USING ("programId") WHERE r."programId" = $1::uuid`,
        programId,
      )
    )[0]!;
  // The report as of the program's clock, and the same from the ledger alone (no rolled-up day read).
  const reports = async () => {
    const { clockAt } = await prisma.program.findUniqueOrThrow({ where: { id: programId }, select: { clockAt: true } });
    const report = () => programReport(prisma, programId, resolveRange({ range: "7d" }, zone, clockAt!), clockAt!);
    const read = await report();
    const [saved] = await prisma.$queryRawUnsafe<{ throughDay: Date; rolledAt: Date }[]>(
      `DELETE FROM "PointsRollup" WHERE "programId" = $1::uuid RETURNING "throughDay", "rolledAt"`,
      programId,
    );
    const ledger = await report();
    await prisma.$executeRawUnsafe(
      `INSERT INTO "PointsRollup" ("programId", "timeZone", "throughDay", "rolledAt") VALUES ($1::uuid, $2, $3, $4)`,
      programId,
      zone,
      saved!.throughDay,
      saved!.rolledAt,
    );
    return { read, ledger };
  };

  await earn(a, "2030-05-08T10:00:00Z");
  await earn(a, "2030-05-10T08:00:00Z");
  await earn(b, "2030-05-10T09:00:00Z");
  await rollUpDuePrograms(prisma); // on the test program's clock, 10 May 14:00 in Madrid
  assert.deepEqual(await state(), {
    through: "2030-05-09",
    day: "2030-05-10",
    asOf: new Date("2030-05-10T11:45:00Z"),
  });
  // Written after the day so far: Ana again the same day (active once), Carl new, Ben the next day.
  await earn(a, "2030-05-10T13:00:00Z");
  await earn(c, "2030-05-10T14:00:00Z");
  await earn(b, "2030-05-11T10:00:00Z");
  await advanceClock(prisma, programId, { to: new Date("2030-05-13T12:00:00Z") });

  // Before the job runs on the new clock: the day so far of 10 May counts for 10 May, the days since from the ledger.
  const before = await reports();
  assert.deepEqual(before.read, before.ledger, "clock moved, job not run yet");
  assert.equal(before.read.current.activeMembers, 3);
  assert.equal(before.read.current.issued, 60);

  // The job on the new clock: 10–12 May closed, the day so far is 13 May's.
  const stale = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT * FROM "PointsToday" WHERE "programId" = $1::uuid`,
    programId,
  );
  await rollUpDuePrograms(prisma);
  assert.deepEqual(await state(), {
    through: "2030-05-12",
    day: "2030-05-13",
    asOf: new Date("2030-05-13T11:45:00Z"),
  });
  const after = await reports();
  assert.deepEqual(after.read, after.ledger, "clock moved, job run");
  assert.deepEqual(after.read, before.read, "the same report");

  // A day so far from before the clock's day left behind (an instance that rolled it up late): ignored.
  await prisma.$executeRawUnsafe(
    `UPDATE "PointsToday" SET day = $2::date, "asOf" = $3::timestamptz, earned = $4, "activeMembers" = $5,
       "activeRecent" = $6::int[] WHERE "programId" = $1::uuid`,
    programId,
    stale[0]!.day,
    stale[0]!.asOf,
    stale[0]!.earned,
    stale[0]!.activeMembers,
    `{${(stale[0]!.activeRecent as number[]).join(",")}}`,
  );
  assert.equal((await state()).day, "2030-05-10");
  const left = await reports();
  assert.deepEqual(left.read, left.ledger, "a stale day so far is not read");
  assert.deepEqual(left.read, before.read);
});
