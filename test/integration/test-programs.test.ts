/**
 * Test programs and the program clock (API.md "Test programs", lib/domain/program-clock.ts) over HTTP against the
 * built app, on PGlite and (with TEST_DATABASE_URL) PostgreSQL, one stack per backend:
 *   lk_test_ and lk_live_ keys, each refused on a program of the other mode (api_key_mode_mismatch);
 *   GET …/clock on both; advance refused on a live program (program_not_test), backwards, and beyond two years;
 *   writes to a test program dated at its clock; a year of a customer's life in one advance (lots expire on their
 *   day, the tier period closes with carry-over, then a later close drops the tier), in the declared order;
 *   a dry run answering the same report and storing nothing;
 *   an advance cut short by a failure in its second step (a trigger fails that step's transaction once), leaving the
 *   first step and the clock consistent, and completed by repeating the call with nothing applied twice;
 *   an advance whose app process is killed (SIGKILL) in the middle of a step (PostgreSQL: a second instance is
 *   killed while a trigger holds the step open), leaving the program as of the last whole step, and a repeat
 *   finishing it with nothing applied twice;
 *   webhook payloads saying livemode false for a test program, true for a live one;
 *   live equals test: one script of writes and times run on live program A (in process before the app starts: its
 *   writes dated at the script's times, its timers run by the scheduler's own sweeps at those times) and on test
 *   program S (over HTTP, the clock moved by advance) leaves the same ledger, balance and tier state.
 *
 *   a campaign's draft simulated over the program's history (API.md "Simulations"): versions by time in the
 *   baseline, the draft with its budget in the candidate, a real spend the draft would not have covered, a refund
 *   replayed as its share, window limits, nothing stored.
 *
 *   lifecycle campaigns (API.md "Lifecycle campaigns"): the trigger's shape refused by path; each trigger (birthday,
 *   29 February, anniversary, inactivity, signup, tier_reached) firing at its moment in the program's time zone and
 *   once; two sweeps of a live program at once (the scheduler's job through two clients on PostgreSQL) firing each
 *   occurrence once.
 *
 * Fixtures: program A (live, three tiers, its key, 12-month expiry); test program T (three tiers, 12-month expiry,
 * clock 2026-01-01, its lk_test_ key); test program U (the same, for the interrupted advance); test program V (the
 * same in Europe/Madrid, for lifecycle campaigns); test program S (the same, for simulations).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BACKENDS, cliString, customerPath, openStack, type Fixtures, type Stack } from "../support/stack";
import { fixtures, programWithTiers, TIERS, type FixturePart, type FixtureTools } from "../support/fixtures";
import { assertProblem } from "../support/assertions";
import { EVENT_BODY_SQL } from "@/lib/domain/webhooks";
import { fireDueLifecycle } from "@/lib/domain/campaigns/lifecycle";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { onProgramClock } from "@/lib/domain/clock";
import { applyUserBatch } from "@/lib/domain/customers";
import { decreaseBalance, expireDuePoints, increaseBalance } from "@/lib/domain/points";
import { recalculateDueTiers } from "@/lib/domain/tiers-engine";

const START = "2026-01-01T00:00:00.000Z";

async function makeTestProgram(tools: FixtureTools, name: string, timeZone?: string) {
  const programId = cliString(
    (await tools.loyalty("program", "create", "--name", name, "--test", "--clock", START)).programId,
    "programId",
  );
  const tiers: Record<string, string> = {};
  for (const [tier, points, factor] of TIERS)
    tiers[tier.toLowerCase()] = cliString(
      (
        await tools.loyalty(
          ...["tier", "create", "--program", programId, "--name", tier],
          ...["--required-points", String(points), "--factor", String(factor)],
        )
      ).tierId,
      "tierId",
    );
  await tools.loyalty(
    ...["program", "update", "--id", programId, "--points-expiry-months", "12"],
    ...(timeZone ? ["--time-zone", timeZone] : []),
  );
  const key = await tools.loyalty(
    ...["apikey", "create", "--program", programId, "--name", "test", "--rate-limit", "100000"],
  );
  return { programId, tiers, key: cliString(key.key, "key") };
}

const testPrograms = (): FixturePart<
  unknown,
  {
    test: { programId: string; tiers: Record<string, string>; key: string };
    interrupted: { programId: string; key: string };
    lifecycle: { programId: string; tiers: Record<string, string>; key: string };
    sim: { programId: string; key: string };
  }
> => ({
  key: `testPrograms ${START} lifecycle Europe/Madrid S`,
  async make(tools) {
    const test = await makeTestProgram(tools, "Program T");
    const { programId, key } = await makeTestProgram(tools, "Program U");
    const lifecycle = await makeTestProgram(tools, "Program V", "Europe/Madrid");
    const sim = await makeTestProgram(tools, "Program S");
    return { test, interrupted: { programId, key }, lifecycle, sim: { programId: sim.programId, key: sim.key } };
  },
});

const SPEC = fixtures("test-programs", programWithTiers(), testPrograms());

/** Fails, once, the `expire` entry of 333 points of program U (its second expiry step): an advance cut short. */
const FAIL_ONCE = (programId: string) => [
  `CREATE SEQUENCE clock_fail_once`,
  `CREATE FUNCTION clock_fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW."programId" = '${programId}'::uuid AND NEW.type = 'expire' AND NEW.points = -333 THEN
       IF nextval('clock_fail_once') = 1 THEN RAISE EXCEPTION 'the advance is cut short here'; END IF;
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER clock_fail_once BEFORE INSERT ON "LedgerEntry" FOR EACH ROW EXECUTE FUNCTION clock_fail_once()`,
];

type Sampled = {
  email: string;
  baselinePoints: number;
  candidatePoints: number;
  why: { name: string; baselinePoints: number; candidatePoints: number }[];
};

/**
 * The live-equals-test script: writes at their times; the timers due on the way (at 2027-02-01 expiry, then the
 * period close; at 2027-04-01 expiry) run by themselves.
 */
type Step = { at: string; write?: ["join"] | ["earn" | "spend", number] };
const SCRIPT: Step[] = [
  { at: "2026-02-01T00:00:00.000Z", write: ["join"] },
  { at: "2026-02-01T00:00:00.000Z", write: ["earn", 1200] },
  { at: "2026-04-01T00:00:00.000Z", write: ["earn", 300] },
  { at: "2026-07-01T00:00:00.000Z", write: ["spend", 200] },
  { at: "2027-02-01T00:00:00.000Z" },
  { at: "2027-03-01T00:00:00.000Z", write: ["earn", 500] },
  { at: "2027-04-01T00:00:00.000Z" },
  { at: "2027-06-01T00:00:00.000Z" },
];
const LIVE_CUSTOMER = `script-live.${process.pid}@example.com`;

/**
 * The script on a live program, in process before the app starts: at each step's time the scheduler's own sweeps for
 * the program at that time (expiry, then tiers: its job order, lib/jobs/scheduler.ts), then the write, dated at that
 * time (the request context's clock, as a request's writes are dated at its now).
 */
async function runLiveScript(prisma: PrismaClient, live: string) {
  // Program A expires nothing; the script's programs both expire points after 12 months.
  await prisma.program.update({ where: { id: live }, data: { pointsExpiryMonths: 12 } });
  let customerId = "";
  for (const step of SCRIPT) {
    const at = new Date(step.at);
    await expireDuePoints(prisma, { programId: live, now: at });
    await recalculateDueTiers(prisma, { programId: live, now: at });
    const w = step.write;
    if (!w) continue;
    await onProgramClock(live, at, () =>
      prisma.$transaction(async (tx) => {
        if (w[0] === "join") {
          await applyUserBatch(tx, live, [{ email: LIVE_CUSTOMER, feature: "user", payload: {} }]);
          customerId = (await tx.customer.findFirst({ where: { programId: live, email: LIVE_CUSTOMER } }))!.id;
          return;
        }
        const move = { programId: live, customerId, points: w[1], source: "api" as const, actor: "script", now: at };
        await (w[0] === "earn" ? increaseBalance(tx, move) : decreaseBalance(tx, move));
      }),
    );
  }
}

let counter = 0;
const email = (label: string) => `${label}.${process.pid}.${++counter}@example.com`;

for (const backend of BACKENDS) {
  describe(`Test programs and the program clock [${backend}]`, () => {
    let app: Stack<Fixtures<typeof SPEC>>;
    before(async () => {
      app = await openStack(backend, SPEC);
      for (const statement of FAIL_ONCE(app.interrupted.programId)) await app.query(statement);
      await app.withPrisma((prisma) => runLiveScript(prisma, app.programId));
      await app.start();
    });
    after(() => app?.close());

    const T = () => `/v1/programs/${app.test.programId}`;
    const U = () => `/v1/programs/${app.interrupted.programId}`;
    const A = () => `/v1/programs/${app.programId}`;
    const asT = () => ({ key: app.test.key });
    const clock = async (base: string, key: string) => {
      const res = await app.api("GET", `${base}/clock`, { key });
      assert.equal(res.status, 200, res.text);
      return res.json as { now: string; mode: string };
    };
    const advance = (base: string, key: string, body: unknown) =>
      app.api("POST", `${base}/clock/advance`, { key, body });
    const create = async (base: string, key: string, address: string, payload: object = {}) => {
      const res = await app.api("POST", `${base}/integrations/api`, {
        key,
        body: [{ email: address, feature: "user", payload }],
      });
      assert.equal(res.status, 201, res.text);
    };
    const increase = async (programId: string, key: string, address: string, points: number) => {
      const res = await app.api("POST", `${customerPath(programId, address)}/balance/increase`, {
        key,
        body: { points },
      });
      assert.equal(res.status, 200, res.text);
      return res.json;
    };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const customer = async (programId: string, key: string, address: string): Promise<any> => {
      const res = await app.api("GET", customerPath(programId, address), { key });
      assert.equal(res.status, 200, res.text);
      return res.json;
    };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const history = async (programId: string, key: string, address: string): Promise<any[]> => {
      const res = await app.api("GET", `${customerPath(programId, address)}/transactions?limit=100`, { key });
      assert.equal(res.status, 200, res.text);
      return res.json.data;
    };
    /** Creates and activates a campaign: its id. */
    const campaign = async (base: string, key: string, body: Record<string, unknown>) => {
      const created = await app.api("POST", `${base}/campaigns`, { key, body });
      assert.equal(created.status, 201, created.text);
      const on = await app.api("POST", `${base}/campaigns/${created.json.id}/activate`, { key });
      assert.equal(on.status, 200, on.text);
      return created.json.id as string;
    };
    const award = (points: number) => [{ type: "award_points", points, tierFactor: false }];
    /** The entries of a history as [type, points, createdAt], in time order then by type (one instant, any order). */
    const ordered = (list: { type: string; points: number; createdAt: string }[]) =>
      list
        .map((e) => [e.type, e.points, e.createdAt] as const)
        .sort((a, b) => (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

    test("a test program's keys start lk_test_, and each mode's key is refused on the other mode's program", async () => {
      assert.match(app.test.key, /^lk_test_[0-9A-Za-z]{32}$/);
      assert.match(app.key, /^lk_live_[0-9A-Za-z]{32}$/);
      assert.equal((await app.api("GET", `${T()}/tiers`, asT())).status, 200);
      const testOnLive = assertProblem(await app.api("GET", `${A()}/tiers`, asT()), 403, "api_key_mode_mismatch");
      assert.match(testOnLive.detail, /test key/);
      const liveOnTest = assertProblem(await app.api("GET", `${T()}/tiers`), 403, "api_key_mode_mismatch");
      assert.match(liveOnTest.detail, /live key/);
      // A test key on another test program: refused the same way (it acts on its own program only).
      assertProblem(await app.api("GET", `${U()}/tiers`, asT()), 403, "api_key_mode_mismatch");
      // A live key on another live program's path (or none) still looks like a program that does not exist.
      assertProblem(await app.api("GET", `/v1/programs/${crypto.randomUUID()}/tiers`), 404, "not_found");
    });

    test("GET …/clock: a test program's stored clock, real time for a live one", async () => {
      assert.deepEqual(await clock(T(), app.test.key), { now: START, mode: "test" });
      const before = Date.now();
      const live = await clock(A(), app.key);
      assert.equal(live.mode, "live");
      assert.ok(Math.abs(Date.parse(live.now) - before) < 60_000, live.now);
    });

    test("advance: live programs refused, forward only, at most two years; a rejected advance moves nothing", async () => {
      assertProblem(await advance(A(), app.key, { to: "2027-01-01T00:00:00Z" }), 409, "program_not_test");
      const back = assertProblem(
        await advance(T(), app.test.key, { to: "2025-12-31T23:59:59Z" }),
        400,
        "validation_failed",
      );
      assert.equal(back.errors[0].path, "to");
      const far = assertProblem(
        await advance(T(), app.test.key, { to: "2028-01-01T00:00:00.001Z" }),
        400,
        "validation_failed",
      );
      assert.match(far.errors[0].message, /two years/);
      assertProblem(await advance(T(), app.test.key, { to: "next year" }), 400, "validation_failed");
      assertProblem(await advance(T(), app.test.key, { to: START, extra: 1 }), 400, "validation_failed");
      assert.equal((await clock(T(), app.test.key)).now, START);
    });

    test("a year of a customer's life in one advance: lots expire on their day, the period closes with carry-over, a birthday fires once a year", async () => {
      const who = email("year");
      const birthday = await campaign(T(), app.test.key, {
        name: "Birthday",
        trigger: { lifecycle: "birthday" },
        effects: award(50),
      });
      // Writes to a test program happen at its clock: the customer joins and earns at 2026-01-01.
      await create(T(), app.test.key, who, { birthdate: "1990-05-20" });
      const first = await increase(app.test.programId, app.test.key, who, 1200);
      assert.equal(first.transaction.createdAt, START);
      const joined = await customer(app.test.programId, app.test.key, who);
      assert.equal(joined.createdAt, START);
      assert.equal(joined.customerTier.currentTierId, app.test.tiers.silver);
      assert.equal(joined.customerTier.recalculationDate, "2027-01-01T00:00:00.000Z");

      // Two months on (nothing due on the way), a second earn dated there.
      const moved = await advance(T(), app.test.key, { to: "2026-03-01T00:00:00Z" });
      assert.equal(moved.status, 200, moved.text);
      assert.deepEqual(moved.json.applied, {
        expiredLots: 0,
        expiredPoints: 0,
        tierChanges: 0,
        pendingActivated: 0,
        lifecycleFired: 0,
        webhooks: 0,
      });
      await increase(app.test.programId, app.test.key, who, 300);
      const entries = await history(app.test.programId, app.test.key, who);
      assert.deepEqual(
        entries.map((e) => [e.type, e.points, e.createdAt]),
        [
          ["earn", 300, "2026-03-01T00:00:00.000Z"],
          ["earn", 1200, START],
        ],
      );

      // The dry run answers what the advance will do, and stores nothing.
      const to = "2027-06-01T00:00:00.000Z";
      const dry = await advance(T(), app.test.key, { to, dryRun: true });
      assert.equal(dry.status, 200, dry.text);
      assert.equal(dry.json.dryRun, true);
      assert.equal((await clock(T(), app.test.key)).now, "2026-03-01T00:00:00.000Z");
      assert.equal((await customer(app.test.programId, app.test.key, who)).loyaltyData.balance, 1500);
      assert.equal((await history(app.test.programId, app.test.key, who)).length, 2);

      const real = await advance(T(), app.test.key, { to });
      assert.equal(real.status, 200, real.text);
      const { dryRun: _d, ...report } = real.json;
      const { dryRun: _r, ...preview } = dry.json;
      assert.deepEqual(preview, report, "the dry run previewed exactly what the advance did");
      assert.equal(report.from, "2026-03-01T00:00:00.000Z");
      assert.equal(report.to, to);
      assert.deepEqual(report.applied, {
        expiredLots: 3,
        expiredPoints: 1550,
        tierChanges: 0,
        pendingActivated: 0,
        lifecycleFired: 2,
        webhooks: 5,
      });
      // In time order; at one instant, expiry before the period close, and before the lifecycle campaigns (the
      // birthday lot of 2026 expires at the instant the birthday of 2027 gives a new one).
      assert.deepEqual(
        report.timeline.map((e: { at: string; kind: string; customer: string }) => [e.at, e.kind, e.customer]),
        [
          ["2026-05-20T00:00:00.000Z", "lifecycle.fired", joined.id],
          ["2027-01-01T00:00:00.000Z", "points.expired", joined.id],
          ["2027-01-01T00:00:00.000Z", "tier.period_closed", joined.id],
          ["2027-03-01T00:00:00.000Z", "points.expired", joined.id],
          ["2027-05-20T00:00:00.000Z", "points.expired", joined.id],
          ["2027-05-20T00:00:00.000Z", "lifecycle.fired", joined.id],
        ],
      );
      assert.deepEqual(report.timeline[0].detail, {
        campaignId: birthday,
        campaignVersion: 1,
        lifecycle: "birthday",
        occurrence: "birthday:2026",
        points: 50,
      });
      assert.equal(report.timeline[5].detail.occurrence, "birthday:2027");
      assert.equal(report.timeline[2].detail.periodTierPoints, 1550);
      assert.equal(report.timelineTotal, 6);

      const after = await customer(app.test.programId, app.test.key, who);
      assert.equal(after.loyaltyData.balance, 50);
      // Carry-over: the period's 1,550 points keep Silver for the next period.
      assert.equal(after.customerTier.currentTierId, app.test.tiers.silver);
      assert.equal(after.customerTier.carryTierPoints, 1550);
      assert.equal(after.customerTier.currentTierPoints, 50);
      assert.equal(after.customerTier.recalculationDate, "2028-01-01T00:00:00.000Z");
      const lived = await history(app.test.programId, app.test.key, who);
      assert.deepEqual(ordered(lived), [
        ["earn", 1200, START],
        ["earn", 300, "2026-03-01T00:00:00.000Z"],
        ["earn", 50, "2026-05-20T00:00:00.000Z"],
        ["expire", -1200, "2027-01-01T00:00:00.000Z"],
        ["expire", -300, "2027-03-01T00:00:00.000Z"],
        ["earn", 50, "2027-05-20T00:00:00.000Z"],
        ["expire", -50, "2027-05-20T00:00:00.000Z"],
      ]);
      // Provenance: each birthday entry names the campaign, its version, the trigger and the occurrence.
      assert.deepEqual(
        lived
          .filter((e) => e.metadata?.lifecycle)
          .map((e) => [e.source, e.actor, e.metadata.campaignId, e.metadata.campaignVersion, e.metadata.occurrence])
          .sort(),
        [
          ["system", "lifecycle", birthday, 1, "birthday:2026"],
          ["system", "lifecycle", birthday, 1, "birthday:2027"],
        ],
      );
      assert.equal((await clock(T(), app.test.key)).now, to);

      // The next close, with nothing earned in the period, drops the tier.
      const next = await advance(T(), app.test.key, { to: "2028-02-01T00:00:00Z" });
      assert.equal(next.status, 200, next.text);
      assert.equal(next.json.applied.tierChanges, 1);
      assert.deepEqual(next.json.timeline, [
        {
          at: "2028-01-01T00:00:00.000Z",
          kind: "tier.changed",
          customer: joined.id,
          detail: {
            fromTierId: app.test.tiers.silver,
            toTierId: app.test.tiers.bronze,
            periodTierPoints: 50,
            carryTierId: app.test.tiers.bronze,
            nextPeriodEndsAt: "2029-01-01T00:00:00.000Z",
          },
        },
      ]);
      assert.equal(
        (await customer(app.test.programId, app.test.key, who)).customerTier.currentTierId,
        app.test.tiers.bronze,
      );
    });

    test("an advance under an Idempotency-Key is one transaction, replayed on a repeat with the key", async () => {
      const key = `advance-${process.pid}-${++counter}`;
      const to = "2028-03-01T00:00:00.000Z";
      const first = await app.api("POST", `${T()}/clock/advance`, {
        ...asT(),
        body: { to },
        headers: { "Idempotency-Key": key },
      });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.from, "2028-02-01T00:00:00.000Z");
      const again = await app.api("POST", `${T()}/clock/advance`, {
        ...asT(),
        body: { to },
        headers: { "Idempotency-Key": key },
      });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(again.json, first.json);
      assert.equal((await clock(T(), app.test.key)).now, to);
      const other = await app.api("POST", `${T()}/clock/advance`, {
        ...asT(),
        body: { to: "2028-04-01T00:00:00Z" },
        headers: { "Idempotency-Key": key },
      });
      assertProblem(other, 409, "idempotency_conflict");
    });

    test("an advance cut short in its second step leaves the first applied; repeating it finishes, nothing twice", async () => {
      const who = email("cut");
      await create(U(), app.interrupted.key, who);
      await increase(app.interrupted.programId, app.interrupted.key, who, 1200);
      assert.equal((await advance(U(), app.interrupted.key, { to: "2026-03-01T00:00:00Z" })).status, 200);
      await increase(app.interrupted.programId, app.interrupted.key, who, 333);

      const to = "2027-06-01T00:00:00.000Z";
      // The step of 2027-03-01 fails (the trigger), after the step of 2027-01-01 committed.
      const cut = await advance(U(), app.interrupted.key, { to });
      assertProblem(cut, 500, "internal");
      assert.equal((await clock(U(), app.interrupted.key)).now, "2027-01-01T00:00:00.000Z");
      const half = await customer(app.interrupted.programId, app.interrupted.key, who);
      assert.equal(half.loyaltyData.balance, 333);
      assert.equal(half.customerTier.recalculationDate, "2028-01-01T00:00:00.000Z");

      const again = await advance(U(), app.interrupted.key, { to });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.json.from, "2027-01-01T00:00:00.000Z");
      assert.deepEqual(
        [again.json.applied.expiredLots, again.json.applied.expiredPoints, again.json.steps],
        [1, 333, 1],
      );
      // A third call to the same time applies nothing.
      const third = await advance(U(), app.interrupted.key, { to });
      assert.equal(third.status, 200, third.text);
      assert.equal(third.json.applied.expiredPoints, 0);
      assert.deepEqual(third.json.timeline, []);
      assert.deepEqual(
        (await history(app.interrupted.programId, app.interrupted.key, who)).map((e) => [
          e.type,
          e.points,
          e.createdAt,
        ]),
        [
          ["expire", -333, "2027-03-01T00:00:00.000Z"],
          ["expire", -1200, "2027-01-01T00:00:00.000Z"],
          ["earn", 333, "2026-03-01T00:00:00.000Z"],
          ["earn", 1200, START],
        ],
      );
      assert.equal((await customer(app.interrupted.programId, app.interrupted.key, who)).loyaltyData.balance, 0);
    });

    test("lifecycle triggers: a malformed trigger is refused by path at creation, and nothing is stored", async () => {
      const V = `/v1/programs/${app.lifecycle.programId}`;
      const key = app.lifecycle.key;
      const refused = async (trigger: unknown, paths: string[], extra: object = {}) => {
        const res = await app.api("POST", `${V}/campaigns`, {
          key,
          body: { name: "bad", trigger, effects: award(1), ...extra },
        });
        const problem = assertProblem(res, 400, "validation_failed");
        assert.deepEqual(problem.errors.map((e: { path: string }) => e.path).sort(), paths, res.text);
      };
      await refused({ lifecycle: "inactivity" }, ["trigger.days"]);
      await refused({ lifecycle: "inactivity", days: 0 }, ["trigger.days"]);
      await refused({ lifecycle: "birthday", days: 30 }, ["trigger.days"]);
      await refused({ lifecycle: "tier_reached" }, ["trigger.tier"]);
      await refused({ lifecycle: "signup", tier: "Gold" }, ["trigger.tier"]);
      await refused({ lifecycle: "someday" }, ["trigger.lifecycle"]);
      await refused({ event: "purchase", lifecycle: "signup" }, ["trigger.event"]);
      await refused({}, ["trigger.event"]);
      // Needs the program: a tier it does not have; an attribute the trigger does not carry.
      await refused({ lifecycle: "tier_reached", tier: "Diamond" }, ["trigger.tier"]);
      await refused({ lifecycle: "birthday" }, ["conditions.attr"], {
        conditions: { attr: "event.total", op: "gt", value: 1 },
      });
      const list = await app.api("GET", `${V}/campaigns`, { key });
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.json.data, []);
    });

    test("lifecycle campaigns fire at their moment in the program's time zone, once each: birthday (29 February), anniversary, inactivity, signup, tier reached", async () => {
      const V = `/v1/programs/${app.lifecycle.programId}`;
      const key = app.lifecycle.key;
      const ids = {
        birthday: await campaign(V, key, {
          name: "Birthday",
          trigger: { lifecycle: "birthday" },
          conditions: { attr: "event.age", op: "gte", value: 18 },
          effects: award(10),
        }),
        anniversary: await campaign(V, key, {
          name: "Anniversary",
          trigger: { lifecycle: "anniversary" },
          effects: award(20),
        }),
        inactivity: await campaign(V, key, {
          name: "Win-back",
          trigger: { lifecycle: "inactivity", days: 30 },
          effects: award(30),
        }),
        signup: await campaign(V, key, { name: "Welcome", trigger: { lifecycle: "signup" }, effects: award(40) }),
        gold: await campaign(V, key, {
          name: "Gold",
          trigger: { lifecycle: "tier_reached", tier: "Gold" },
          effects: award(50),
        }),
      };
      const names = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
      const ana = email("ana");
      const leo = email("leo");
      const kid = email("kid");
      await create(V, key, ana, { birthdate: "1990-01-15" });
      await create(V, key, leo, { birthdate: "2000-02-29" });
      await create(V, key, kid, { birthdate: "2020-01-20" });
      const who: Record<string, string> = {};
      for (const [label, address] of [
        ["ana", ana],
        ["leo", leo],
        ["kid", kid],
      ] as const)
        who[(await customer(app.lifecycle.programId, key, address)).id] = label;
      /** An advance's lifecycle rows as "at customer campaign occurrence", sorted. */
      const fired = async (to: string) => {
        const res = await advance(V, key, { to });
        assert.equal(res.status, 200, res.text);
        const rows = res.json.timeline
          .filter((e: { kind: string }) => e.kind === "lifecycle.fired")
          .map(
            (e: { at: string; customer: string; detail: { campaignId: string; occurrence: string } }) =>
              `${e.at} ${who[e.customer]} ${names[e.detail.campaignId]} ${e.detail.occurrence}`,
          )
          .sort();
        assert.equal(res.json.applied.lifecycleFired, rows.length);
        return rows;
      };

      // Signups at the clock (2026-01-01, 01:00 in Madrid); ana's birthday at midnight in Madrid; the kid's birthday
      // is used up with its condition false (age 6): nothing.
      assert.deepEqual(await fired("2026-01-20T00:00:00Z"), [
        "2026-01-01T00:00:00.000Z ana signup signup",
        "2026-01-01T00:00:00.000Z kid signup signup",
        "2026-01-01T00:00:00.000Z leo signup signup",
        "2026-01-14T23:00:00.000Z ana birthday birthday:2026",
      ]);
      assert.deepEqual(await fired("2026-01-20T00:00:00Z"), [], "the same advance again fires nothing");
      // Ana earns into Gold at 2026-01-20: the tier is reached then, and her spell of inactivity starts again.
      await increase(app.lifecycle.programId, key, ana, 5000);
      assert.deepEqual(await fired("2026-03-01T00:00:00Z"), [
        "2026-01-20T00:00:00.000Z ana gold tier:Gold:2026-01-20T00:00:00.000Z",
        "2026-01-31T00:00:00.000Z kid inactivity inactive:2026-01-01T00:00:00.000Z",
        "2026-01-31T00:00:00.000Z leo inactivity inactive:2026-01-01T00:00:00.000Z",
        "2026-02-19T00:00:00.000Z ana inactivity inactive:2026-01-20T00:00:00.000Z",
        // 29 February in a common year: on 28 February (local midnight).
        "2026-02-27T23:00:00.000Z leo birthday birthday:2026",
      ]);
      // A year on: the first anniversaries; birthdays again; no new spell of inactivity (lifecycle points and
      // expiry are not activity); Gold kept at the period close is not reached again.
      assert.deepEqual(await fired("2027-03-01T00:00:00Z"), [
        "2026-12-31T23:00:00.000Z ana anniversary anniversary:2027",
        "2026-12-31T23:00:00.000Z kid anniversary anniversary:2027",
        "2026-12-31T23:00:00.000Z leo anniversary anniversary:2027",
        "2027-01-14T23:00:00.000Z ana birthday birthday:2027",
        "2027-02-27T23:00:00.000Z leo birthday birthday:2027",
      ]);
      // 2028 is a leap year: leo's birthday is on 29 February itself.
      assert.deepEqual(await fired("2028-03-01T00:00:00Z"), [
        "2027-12-31T23:00:00.000Z ana anniversary anniversary:2028",
        "2027-12-31T23:00:00.000Z kid anniversary anniversary:2028",
        "2027-12-31T23:00:00.000Z leo anniversary anniversary:2028",
        "2028-01-14T23:00:00.000Z ana birthday birthday:2028",
        "2028-02-28T23:00:00.000Z leo birthday birthday:2028",
      ]);
      // The ledger has each of them once, dated at its moment, with its provenance.
      const lifecycleEntries = async (address: string) =>
        (await history(app.lifecycle.programId, key, address))
          .filter((e) => e.metadata?.lifecycle)
          .map((e) => `${e.createdAt} ${e.points} ${e.metadata.lifecycle} ${e.metadata.occurrence}`)
          .sort();
      assert.deepEqual(await lifecycleEntries(leo), [
        "2026-01-01T00:00:00.000Z 40 signup signup",
        "2026-01-31T00:00:00.000Z 30 inactivity inactive:2026-01-01T00:00:00.000Z",
        "2026-02-27T23:00:00.000Z 10 birthday birthday:2026",
        "2026-12-31T23:00:00.000Z 20 anniversary anniversary:2027",
        "2027-02-27T23:00:00.000Z 10 birthday birthday:2027",
        "2027-12-31T23:00:00.000Z 20 anniversary anniversary:2028",
        "2028-02-28T23:00:00.000Z 10 birthday birthday:2028",
      ]);
      assert.equal((await lifecycleEntries(kid)).filter((e) => e.includes("birthday")).length, 0);
    });

    test("two schedulers sweeping a live program at once fire each occurrence once (the occurrence key, not the watermark)", async () => {
      const signup = await campaign(A(), app.key, {
        name: "Welcome",
        trigger: { lifecycle: "signup" },
        effects: award(25),
      });
      const addresses = Array.from({ length: 8 }, () => email("sweep"));
      const res = await app.api("POST", `${A()}/integrations/api`, {
        body: addresses.map((address) => ({ email: address, feature: "user", payload: {} })),
      });
      assert.equal(res.status, 201, res.text);
      if (backend === "pglite") await app.stopAll(); // PGlite: Prisma and SQL only while no app runs
      // The scheduler's job (lib/jobs/scheduler.ts runs this function), twice at once: on PostgreSQL through two
      // clients with their own pools, as two instances would; on PGlite, interleaved on its one connection.
      const sweep = (prisma: PrismaClient) => fireDueLifecycle(prisma, { programId: app.programId });
      const runs =
        backend === "postgres"
          ? await app.withPrisma((one) => app.withPrisma((two) => Promise.all([sweep(one), sweep(two)])))
          : await app.withPrisma((one) => Promise.all([sweep(one), sweep(one)]));
      assert.equal(runs[0].fired + runs[1].fired, addresses.length, JSON.stringify(runs));
      assert.deepEqual(
        runs.map((r) => r.failed),
        [0, 0],
      );
      // A sweep that read an old watermark (as one started earlier would) finds every occurrence fired already.
      await app.query(`DELETE FROM "LifecycleSweep" WHERE "programId" = $1::uuid`, [app.programId]);
      assert.equal((await app.withPrisma(sweep)).fired, 0);
      const rows = await app.query<{ customerId: string; n: number }>(
        `SELECT "customerId"::text AS "customerId", count(*)::int AS n FROM "LedgerEntry"
         WHERE "programId" = $1::uuid AND metadata->>'campaignId' = $2 GROUP BY "customerId"`,
        [app.programId, signup],
      );
      assert.equal(rows.length, addresses.length);
      assert.ok(
        rows.every((r) => r.n === 1),
        JSON.stringify(rows),
      );
      const [occurrences] = await app.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "LifecycleOccurrence" WHERE "campaignId" = $1::uuid`,
        [signup],
      );
      assert.equal(occurrences!.n, addresses.length);
      if (backend === "pglite") await app.start();
    });

    test(
      "an advance whose app process is killed mid-step: the program is as of the last whole step; a repeat finishes it",
      // A second app instance to kill while the first keeps serving: PostgreSQL only (PGlite serves one instance).
      { skip: backend === "pglite" ? "PGlite serves one app instance at a time" : false },
      async () => {
        const who = email("killed");
        const U = `/v1/programs/${app.interrupted.programId}`;
        const key = app.interrupted.key;
        // Program U's clock is where the cut-short test left it; the customer joins and earns there.
        const start = (await clock(U, key)).now;
        const later = (months: number) => {
          const d = new Date(start);
          d.setUTCMonth(d.getUTCMonth() + months);
          return d.toISOString();
        };
        await create(U, key, who);
        await increase(app.interrupted.programId, key, who, 1000);
        assert.equal((await advance(U, key, { to: later(2) })).status, 200);
        await increase(app.interrupted.programId, key, who, 444);
        // The step that expires the 444 points (12 months after them) holds its transaction open for a while, once.
        await app.query(`CREATE SEQUENCE clock_hold_once`);
        await app.query(`CREATE FUNCTION clock_hold_once() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW."programId" = '${app.interrupted.programId}'::uuid AND NEW.type = 'expire' AND NEW.points = -444
               AND nextval('clock_hold_once') = 1 THEN
              PERFORM pg_sleep(3);
            END IF;
            RETURN NEW;
          END $$`);
        await app.query(
          `CREATE TRIGGER clock_hold_once BEFORE INSERT ON "LedgerEntry" FOR EACH ROW EXECUTE FUNCTION clock_hold_once()`,
        );
        const victim = await app.start();
        const to = later(16);
        const cut = victim.api("POST", `${U}/clock/advance`, { key, body: { to } }).catch((err: Error) => err);
        // Mid-step: the expiry of the second step is inserting (and sleeping); the first step has committed.
        const deadline = Date.now() + 30_000;
        for (;;) {
          const [held] = await app.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep'`,
          );
          if (held!.n > 0) break;
          assert.ok(Date.now() < deadline, "the advance never reached its second step");
          await new Promise((r) => setTimeout(r, 50));
        }
        process.kill(-victim.pid, "SIGKILL");
        await victim.exited;
        const answer = await cut;
        assert.ok(answer instanceof Error || answer.status !== 200, "the killed instance gave no answer");
        // Consistent: the first step (the 1,000 points' expiry and the period close) is in, the clock there.
        assert.equal((await clock(U, key)).now, later(12));
        const half = await customer(app.interrupted.programId, key, who);
        assert.equal(half.loyaltyData.balance, 444);
        assert.equal(half.customerTier.recalculationDate, later(24));

        // The repeat waits for the killed step's transaction to end (rolled back), then finishes from the clock.
        const again = await advance(U, key, { to });
        assert.equal(again.status, 200, again.text);
        assert.equal(again.json.from, later(12));
        assert.deepEqual([again.json.applied.expiredLots, again.json.applied.expiredPoints], [1, 444]);
        const third = await advance(U, key, { to });
        assert.equal(third.status, 200, third.text);
        assert.equal(third.json.applied.expiredPoints, 0);
        assert.deepEqual(
          (await history(app.interrupted.programId, key, who)).map((e) => [e.type, e.points, e.createdAt]),
          [
            ["expire", -444, later(14)],
            ["expire", -1000, later(12)],
            ["earn", 444, later(2)],
            ["earn", 1000, start],
          ],
        );
        assert.equal((await customer(app.interrupted.programId, key, who)).loyaltyData.balance, 0);
      },
    );

    test("a campaign's draft simulated over real history: versions by time, budget, shortfall, refund; nothing stored", async () => {
      const S = `/v1/programs/${app.sim.programId}`;
      const asS = { key: app.sim.key };
      const post = async (path: string, body?: unknown, headers?: Record<string, string>) =>
        app.api("POST", `${S}${path}`, { ...asS, body, headers });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const ok = async (res: { status: number; text: string; json: any }, status = 200) => {
        assert.equal(res.status, status, res.text);
        return res.json;
      };
      await ok(
        await app.api("PUT", `${S}/event-types/purchase`, {
          ...asS,
          body: { attributes: { total: { type: "number" } } },
        }),
      );
      const fixed = (points: number) => ({
        name: `fixed ${points}`,
        trigger: { event: "purchase" },
        effects: [{ type: "award_points", points, tierFactor: false }],
      });
      const campaignId = (await ok(await post("/campaigns", fixed(10)), 201)).id as string;
      const C = `/campaigns/${campaignId}`;
      await ok(await post(`${C}/activate`));
      const [a, b] = [email("sim-a"), email("sim-b")];
      await create(S, app.sim.key, a);
      await create(S, app.sim.key, b);
      const purchase = async (who: string, orderId: string) =>
        ok(
          await post(`/customers/${encodeURIComponent(who)}/events`, {
            type: "purchase",
            orderId,
            attributes: { total: 100 },
          }),
        );
      // Day 0: a buys under version 1 (10 points) and spends them all.
      assert.equal((await purchase(a, "sim-o1")).balance, 10);
      await ok(await post(`/customers/${encodeURIComponent(a)}/balance/decrease`, { points: 10 }));
      // Day 1: version 2 (20 points) runs; b earns 50 elsewhere, buys (20), and the order is refunded.
      await ok(await advance(S, app.sim.key, { to: "2026-01-02T00:00:00Z" }));
      await ok(await app.api("PUT", `${S}${C}`, { ...asS, body: fixed(20) }));
      await ok(await post(`${C}/activate`));
      await increase(app.sim.programId, app.sim.key, b, 50);
      assert.equal((await purchase(b, "sim-o2")).balance, 70);
      await ok(await post(`/orders/sim-o2/refund`, { reason: "returned" }));
      await ok(await advance(S, app.sim.key, { to: "2026-01-03T00:00:00Z" }));

      const window = { from: START, to: "2026-01-03T00:00:00.000Z" };
      // No draft: nothing to simulate.
      assertProblem(await post(`${C}/simulate`, window), 409, "conflict");
      // The draft: 2 points a purchase, with a budget of 3.
      await ok(await app.api("PUT", `${S}${C}`, { ...asS, body: { ...fixed(2), limits: { budgetPoints: 3 } } }));
      const rows = async () =>
        (
          await app.query<{ n: number }>(`SELECT count(*)::int AS n FROM "LedgerEntry" WHERE "programId" = $1`, [
            app.sim.programId,
          ])
        )[0]!.n;
      const entriesBefore = backend === "postgres" ? await rows() : null;
      const res = await post(`${C}/simulate`, window, { "Idempotency-Key": `sim-${process.pid}` });
      const report = await ok(res);
      assert.equal(res.headers.get("idempotent-replayed"), null);
      assert.deepEqual(report.replayed, { events: 2, entries: 3, customers: 2, skippedEvents: 0 });
      assert.deepEqual(report.campaign, {
        id: campaignId,
        name: "fixed 2",
        status: "active",
        version: 2,
        draftVersion: 3,
        pending: null,
      });
      // Baseline: version 1 for a (day 0), version 2 for b (day 1), as the ledger had them.
      assert.equal(report.baseline.pointsIssued, 30);
      assert.equal(report.candidate.pointsIssued, 3);
      assert.deepEqual(report.difference, {
        pointsIssued: -27,
        customersAffected: 2,
        tierMoves: { up: 0, down: 0 },
        budgetExhaustedAt: "2026-01-02T00:00:00.000Z",
        // a would owe 8 (2 earned, 10 spent); b's refund takes back the 1 the draft gave: 50 either way.
        liability: { points: -8 },
      });
      assert.deepEqual([report.baseline.outstanding, report.candidate.outstanding], [50, 42]);
      assert.deepEqual([report.baseline.unaffordableRedemptions, report.candidate.unaffordableRedemptions], [0, 1]);
      assert.equal(report.shortfalls.customers, 1);
      assert.deepEqual(report.shortfalls.list, [
        { customerId: report.shortfalls.list[0].customerId, email: a, at: START, points: -10, balanceBefore: 2 },
      ]);
      assert.deepEqual(
        report.sample.map((s: Sampled) => [
          s.email,
          s.baselinePoints,
          s.candidatePoints,
          s.why.map((w) => [w.name, w.baselinePoints, w.candidatePoints]),
        ]),
        [
          [b, 20, 1, [["fixed 2", 20, 1]]],
          [a, 10, 2, [["fixed 2", 10, 2]]],
        ],
      );
      assert.deepEqual(report.daily, [
        { day: "2026-01-01", baseline: 10, candidate: 2 },
        { day: "2026-01-02", baseline: 20, candidate: 1 },
      ]);
      // A window from day 1 replays b's event only.
      const later = await ok(await post(`${C}/simulate`, { from: "2026-01-02T00:00:00Z", to: window.to }));
      // The draft's budget starts from what the campaign gave before the window (a's 10): used up from the start.
      assert.equal(later.replayed.events, 1);
      assert.equal(later.candidate.campaignPoints, 0);
      assert.equal(later.difference.budgetExhaustedAt, "2026-01-02T00:00:00.000Z");
      // Limits: to after from, at most 366 days, from not after the clock; unknown campaign 404.
      assertProblem(await post(`${C}/simulate`, { from: window.to, to: window.to }), 400, "validation_failed");
      const far = assertProblem(
        await post(`${C}/simulate`, { from: "2025-01-01T00:00:00Z", to: "2026-01-03T00:00:00Z" }),
        400,
        "validation_failed",
      );
      assert.match(far.errors[0].message, /366 days/);
      assertProblem(
        await post(`${C}/simulate`, { from: "2026-02-01T00:00:00Z", to: "2026-03-01T00:00:00Z" }),
        400,
        "validation_failed",
      );
      assertProblem(await post(`/campaigns/${crypto.randomUUID()}/simulate`, window), 404, "not_found");
      assertProblem(await post(`${C}/simulate`, { from: START }), 400, "validation_failed");
      // Nothing stored: the campaign's budget and the ledger as they were.
      const after = await ok(await app.api("GET", `${S}${C}`, asS));
      assert.equal(after.budgetUsed, 0);
      assert.equal(after.draft.name, "fixed 2");
      if (entriesBefore !== null) assert.equal(await rows(), entriesBefore);
    });

    test("live equals test: one script on a live program (scheduler sweeps) and a test program (advance), same ledger", async () => {
      // The test program, over HTTP: advance to each step's time, then write. (The live program ran the script
      // before the app started: see LIVE_SCRIPT.)
      const S = `/v1/programs/${app.sim.programId}`;
      const onTest = email("script-test");
      for (const step of SCRIPT) {
        if ((await clock(S, app.sim.key)).now !== step.at) {
          const moved = await advance(S, app.sim.key, { to: step.at });
          assert.equal(moved.status, 200, moved.text);
        }
        const w = step.write;
        if (!w) continue;
        if (w[0] === "join") await create(S, app.sim.key, onTest);
        else if (w[0] === "earn") await increase(app.sim.programId, app.sim.key, onTest, w[1]);
        else {
          const res = await app.api("POST", `${customerPath(app.sim.programId, onTest)}/balance/decrease`, {
            key: app.sim.key,
            body: { points: w[1] },
          });
          assert.equal(res.status, 200, res.text);
        }
      }

      // Compared by what they are, not by ids: the ledger, the balance and the tier state by tier name.
      const state = async (programId: string, key: string, address: string) => {
        const tiers = await app.api("GET", `/v1/programs/${programId}/tiers`, { key });
        assert.equal(tiers.status, 200, tiers.text);
        const name = new Map<string | null, string | null>([[null, null]]);
        for (const t of tiers.json.data as { id: string; name: string }[]) name.set(t.id, t.name);
        const c = await customer(programId, key, address);
        return {
          ledger: (await history(programId, key, address)).map((e) => [
            e.type,
            e.points,
            e.balanceAfter,
            e.createdAt,
            e.expiresAt,
          ]),
          balance: c.loyaltyData.balance,
          tierStatus: c.loyaltyData.tierStatus,
          createdAt: c.createdAt,
          tier: {
            current: name.get(c.customerTier.currentTierId),
            carry: name.get(c.customerTier.carryTierId),
            currentTierPoints: c.customerTier.currentTierPoints,
            carryTierPoints: c.customerTier.carryTierPoints,
            recalculationDate: c.customerTier.recalculationDate,
            tierChangedAt: c.customerTier.tierChangedAt,
          },
        };
      };
      const test = await state(app.sim.programId, app.sim.key, onTest);
      const live = await state(app.programId, app.key, LIVE_CUSTOMER);
      // The script did what it says: two expiries on their days, the period closed with carry-over, Silver kept.
      assert.deepEqual(
        test.ledger.map(([type, points, , createdAt]) => [type, points, createdAt]),
        [
          ["expire", -300, "2027-04-01T00:00:00.000Z"],
          ["earn", 500, "2027-03-01T00:00:00.000Z"],
          ["expire", -1000, "2027-02-01T00:00:00.000Z"],
          ["spend", -200, "2026-07-01T00:00:00.000Z"],
          ["earn", 300, "2026-04-01T00:00:00.000Z"],
          ["earn", 1200, "2026-02-01T00:00:00.000Z"],
        ],
      );
      assert.deepEqual([test.tier.current, test.tier.carryTierPoints, test.balance], ["Silver", 1500, 500]);
      assert.deepEqual(live, test);
    });

    test("webhook payloads say livemode: false for a test program's events, true for a live one's", async () => {
      const who = email("live");
      await create(A(), app.key, who);
      await increase(app.programId, app.key, who, 10);
      if (backend === "pglite") await app.stopAll(); // PGlite: SQL only while no app runs
      const bodies = async (programId: string) =>
        (
          await app.query<{ body: string }>(
            `SELECT ${EVENT_BODY_SQL} AS body FROM "Event" e WHERE e."programId" = $1`,
            [programId],
          )
        ).map((r) => JSON.parse(r.body).livemode);
      const test = await bodies(app.test.programId);
      const live = await bodies(app.programId);
      assert.ok(test.length > 0 && live.length > 0);
      assert.deepEqual([...new Set(test)], [false]);
      assert.deepEqual([...new Set(live)], [true]);
    });
  });
}
