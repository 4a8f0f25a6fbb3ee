/**
 * Pending points, expiry policies and cancelled redemptions of expired lots (issue 27; API.md §4 "Pending points",
 * "Expiry"), over HTTP against the built app on PGlite and (with TEST_DATABASE_URL) PostgreSQL, one stack per backend,
 * every time on test programs' clocks (POST …/clock/advance):
 *   pending for 7 days: not in the balance nor spendable, shown with its maturity on the customer read and the balance
 *   explanation, matured at its instant (not 1 ms before) into an `earn` entry; refunded before maturity (in full and
 *   in part): cancelled, the balance untouched, only the rest matures;
 *   pending until confirmed: never matures by time; the confirm makes it spendable, a repeat matures nothing, an
 *   unknown order is 404;
 *   each expiry policy at its boundary (1 ms before, then at it): rolling, rolling rounded up to the end of the month
 *   (in Europe/Madrid) and of the quarter, calendar, inactivity (reset by one earn), none; a policy change applies to
 *   lots earned after it;
 *   a cancelled redemption whose lots expired since: those points come back expired, the others into their own lot
 *   with its own expiry;
 *   the webhooks' events `points.pending`, `points.matured`, `points.expiring` (read from the outbox at the end);
 *   the overrides (pend27b) on a program whose points are spendable at once: a campaign with `pendingDays: 14` (its
 *   dry run and its effect say so, a refund before maturity cancels without touching the balance, it matures at its
 *   instant, a simulation of a draft with 30 days counts its points pending, not outstanding) and an earning flow
 *   pending until confirmed (matured by `POST …/orders/{orderId}/confirm`); `pendingCountsForTier` true (tier points
 *   at the earn, taken back by a cancel, not counted twice at maturity) against the default false (at maturity);
 *   a refund cancelling a budgeted campaign's pending points gives them back to its budget (in full and in part, the
 *   customer's use once nothing is left), also while other customers' events spend the budget concurrently.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BACKENDS, cliString, customerPath, openStack, type Fixtures, type Stack } from "../support/stack";
import { fixtures, type FixturePart, type FixtureTools } from "../support/fixtures";
import { assertProblem } from "../support/assertions";
import { applyUserBatch } from "@/lib/domain/customers";
import { increaseBalance } from "@/lib/domain/points";
import { updatePointsPolicy } from "@/lib/domain/points-policy";

const START = "2026-01-01T00:00:00.000Z";

/** The test programs, each with its policy (CLI flags of `program points-policy`) and its key. */
const POLICIES = {
  pend: ["--pending-days", "7"],
  conf: ["--pending-until-confirmed", "yes"],
  roll: ["--expiry-policy", "rolling", "--expiry-months", "1"],
  month: ["--expiry-policy", "rolling", "--expiry-months", "1", "--expiry-rounding", "month"],
  quarter: ["--expiry-policy", "rolling", "--expiry-months", "1", "--expiry-rounding", "quarter"],
  cal: ["--expiry-policy", "rolling", "--expiry-months", "1"], // changed to calendar before the app starts
  idle: ["--expiry-policy", "inactivity", "--expiry-inactivity-days", "30", "--expiry-warning-days", "5"],
  none: ["--expiry-policy", "none"],
  over: ["--pending-days", "0"],
  tierOn: ["--pending-days", "7", "--pending-counts-for-tier", "yes"],
  tierOff: ["--pending-days", "7"],
} as const;
type Name = keyof typeof POLICIES;

async function policyProgram(tools: FixtureTools, name: Name) {
  const programId = cliString(
    (await tools.loyalty("program", "create", "--name", `P ${name}`, "--test", "--clock", START)).programId,
    "programId",
  );
  await tools.loyalty("program", "points-policy", "--program", programId, ...POLICIES[name]);
  const extra = name === "month" ? ["--time-zone", "Europe/Madrid"] : [];
  await tools.loyalty("program", "update", "--id", programId, "--redemption-cancel-hours", "any", ...extra);
  const key = await tools.loyalty(
    ...["apikey", "create", "--program", programId, "--name", "test", "--rate-limit", "100000"],
  );
  return { programId, key: cliString(key.key, "key") };
}

const policyPrograms = (): FixturePart<
  unknown,
  { p: Record<Name, { programId: string; key: string }>; reward: string }
> => ({
  key: `policyPrograms ${START} ${JSON.stringify(POLICIES)}`,
  async make(tools) {
    const p = {} as Record<Name, { programId: string; key: string }>;
    for (const name of Object.keys(POLICIES) as Name[]) p[name] = await policyProgram(tools, name);
    for (const name of ["tierOn", "tierOff"] as const)
      for (const [tier, required] of [
        ["Bronze", "0"],
        ["Silver", "100"],
      ] as const)
        await tools.loyalty(
          ...["tier", "create", "--program", p[name].programId, "--name", tier, "--required-points", required],
          ...["--factor", "1"],
        );
    await tools.loyalty(
      ...["earning-flow", "create", "--program", p.over.programId, "--key", "delivered", "--points", "30"],
      "--pending-until-confirmed",
    );
    const reward = await tools.loyalty(
      ...["reward", "create", "--program", p.roll.programId, "--name", "Mug", "--cost-points", "120"],
    );
    return { p, reward: cliString(reward.rewardId, "rewardId") };
  },
});

const SPEC = fixtures("pending-expiry", policyPrograms());
const CHANGED = "changed@example.com";

for (const backend of BACKENDS) {
  describe(`Pending points and expiry policies [${backend}]`, () => {
    let app: Stack<Fixtures<typeof SPEC>>;
    before(async () => {
      app = await openStack(backend, SPEC);
      // "A change applies to lots earned after it": a lot earned under rolling 1 month, then the policy changed.
      const cal = app.p.cal.programId;
      await app.withPrisma(async (prisma) => {
        await prisma.$transaction(async (tx) => {
          await applyUserBatch(tx, cal, [{ email: CHANGED, feature: "user", payload: {} }]);
          const customer = await tx.customer.findFirstOrThrow({ where: { programId: cal, email: CHANGED } });
          const move = { programId: cal, customerId: customer.id, source: "api" as const, actor: "test" };
          await increaseBalance(tx, { ...move, points: 5, now: new Date(START) });
        });
        await updatePointsPolicy(prisma, cal, { expiryPolicy: "calendar", expiryCalendarDate: "03-31" });
      });
      await app.start();
    });
    after(() => app?.close());

    let n = 0;
    const P = (name: Name) => `/v1/programs/${app.p[name].programId}`;
    const C = (name: Name, email: string) => customerPath(app.p[name].programId, email);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const call = async (name: Name, method: string, path: string, body?: unknown, status = 200): Promise<any> => {
      const res = await app.api(method, path, { key: app.p[name].key, body });
      assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
      return res.json;
    };
    const join = async (name: Name, label: string) => {
      const email = `${label}.${process.pid}.${++n}@example.com`;
      await call(name, "POST", `${P(name)}/integrations/api`, [{ email, feature: "user", payload: {} }], 201);
      return email;
    };
    const earn = (name: Name, email: string, points: number, orderId?: string) =>
      call(name, "POST", `${C(name, email)}/balance/increase`, { points, ...(orderId ? { orderId } : {}) });
    const to = (name: Name, at: string) => call(name, "POST", `${P(name)}/clock/advance`, { to: at });
    const balance = async (name: Name, email: string) =>
      (await call(name, "GET", C(name, email))).loyaltyData.balance as number;

    test("pending for 7 days: not spendable, shown with its maturity, matured at its instant; refunds cancel it", async () => {
      const email = await join("pend", "pend");
      const earned = await earn("pend", email, 100, "o-1");
      assert.equal(earned.balance, 0);
      assert.equal(earned.transaction, null);
      assert.equal(earned.pending.points, 100);
      assert.equal(earned.pending.status, "pending");
      assert.equal(earned.pending.maturesAt, "2026-01-08T00:00:00.000Z");
      const read = (await call("pend", "GET", C("pend", email))).loyaltyData;
      assert.equal(read.balance, 0);
      assert.equal(read.pendingPoints, 100);
      assert.deepEqual(
        read.pending.map((p: { points: number; maturesAt: string }) => [p.points, p.maturesAt]),
        [[100, "2026-01-08T00:00:00.000Z"]],
      );
      const explained = await call("pend", "GET", `${C("pend", email)}/balance`);
      assert.equal(explained.balance, 0);
      assert.equal(explained.pending.points, 100);
      assert.equal(explained.pending.items[0].maturesAt, "2026-01-08T00:00:00.000Z");
      assertProblem(
        await app.api("POST", `${C("pend", email)}/balance/decrease`, { key: app.p.pend.key, body: { points: 1 } }),
        409,
        "insufficient_balance",
      );
      // Two more orders, refunded before they mature: in full, and a quarter of the other.
      await earn("pend", email, 40, "o-2");
      await earn("pend", email, 80, "o-3");
      const full = await call("pend", "POST", `${P("pend")}/orders/o-2/refund`, { reason: "returned" });
      assert.equal(full.pendingCancelled, 40);
      assert.equal(full.pointsReversed, 0);
      const part = await call("pend", "POST", `${P("pend")}/orders/o-3/refund`, { amount: 1, total: 4, reason: "r" });
      assert.equal(part.pendingCancelled, 20);
      assert.equal(await balance("pend", email), 0);

      const before = await to("pend", "2026-01-07T23:59:59.999Z");
      assert.equal(before.applied.pendingActivated, 0);
      assert.equal(await balance("pend", email), 0);
      const at = await to("pend", "2026-01-08T00:00:00.000Z");
      assert.equal(at.applied.pendingActivated, 2);
      const after = (await call("pend", "GET", C("pend", email))).loyaltyData;
      assert.equal(after.balance, 160, "100 and the 60 left of o-3; o-2 never");
      assert.equal(after.pendingPoints, 0);
      const entries = (await call("pend", "GET", `${C("pend", email)}/transactions`)).data;
      assert.deepEqual(
        entries
          .map((e: { type: string; points: number; orderId: string }) => `${e.type} ${e.points} ${e.orderId}`)
          .sort(),
        ["earn 100 o-1", "earn 60 o-3"],
      );
      assert.ok(entries.every((e: { metadata: { pendingId?: string } }) => typeof e.metadata.pendingId === "string"));
      // A refund after maturity reverses the entry as before.
      const late = await call("pend", "POST", `${P("pend")}/orders/o-1/refund`, { reason: "late" });
      assert.equal(late.pointsReversed, 100);
      assert.equal(late.pendingCancelled, 0);
      assert.equal(await balance("pend", email), 60);
    });

    test("pending until confirmed: time does not mature it; the confirm does, once; an unknown order is 404", async () => {
      const email = await join("conf", "conf");
      const earned = await earn("conf", email, 70, "c-1");
      assert.equal(earned.pending.maturesAt, null);
      await to("conf", "2026-03-01T00:00:00.000Z");
      assert.equal(await balance("conf", email), 0);
      const confirmed = await call("conf", "POST", `${P("conf")}/orders/c-1/confirm`);
      assert.equal(confirmed.pointsMatured, 70);
      assert.equal(confirmed.pending[0].status, "matured");
      assert.equal(confirmed.pending[0].settledAt, "2026-03-01T00:00:00.000Z");
      assert.equal(await balance("conf", email), 70);
      const again = await call("conf", "POST", `${P("conf")}/orders/c-1/confirm`, {});
      assert.equal(again.pointsMatured, 0);
      assert.equal(await balance("conf", email), 70);
      assertProblem(
        await app.api("POST", `${P("conf")}/orders/nothing/confirm`, { key: app.p.conf.key }),
        404,
        "order_not_found",
      );
    });

    test("rolling, and a cancelled redemption whose lots expired since: expired points come back expired", async () => {
      const r1 = await join("roll", "r1");
      const r2 = await join("roll", "r2");
      assert.equal((await earn("roll", r1, 10)).transaction.expiresAt, "2026-02-01T00:00:00.000Z");
      await earn("roll", r2, 100);
      await to("roll", "2026-01-20T00:00:00.000Z");
      await earn("roll", r2, 50);
      const redeemed = await call("roll", "POST", `${C("roll", r2)}/rewards/${app.reward}/redeem`, {}, 201);
      assert.equal(redeemed.balance, 30);
      await to("roll", "2026-01-31T23:59:59.999Z");
      assert.equal(await balance("roll", r1), 10);
      await to("roll", "2026-02-01T00:00:00.000Z");
      assert.equal(await balance("roll", r1), 0);
      await to("roll", "2026-02-05T00:00:00.000Z");
      const cancelled = await call("roll", "POST", `${P("roll")}/redemptions/${redeemed.redemption.id}/cancel`, {
        reason: "till",
      });
      assert.equal(cancelled.expiredPoints, 100, "the 100 of the lot that expired on 1 February");
      assert.equal(cancelled.balance, 50, "30 left plus the 20 of the live lot");
      const types = (await call("roll", "GET", `${C("roll", r2)}/transactions?limit=2`)).data.map(
        (e: { type: string; points: number }) => `${e.type} ${e.points}`,
      );
      assert.deepEqual(types.sort(), ["expire -100", "reversal 120"]);
      // The 20 went back into their own lot (earned 20 January): they expire with it, not a month after the cancel.
      await to("roll", "2026-02-19T23:59:59.999Z");
      assert.equal(await balance("roll", r2), 50);
      await to("roll", "2026-02-20T00:00:00.000Z");
      assert.equal(await balance("roll", r2), 0);
    });

    test("rolling rounded up to the end of the month (Europe/Madrid) and of the quarter", async () => {
      const m = await join("month", "month");
      await to("month", "2026-01-15T00:00:00.000Z");
      assert.equal((await earn("month", m, 10)).transaction.expiresAt, "2026-02-28T23:00:00.000Z");
      await to("month", "2026-02-28T22:59:59.999Z");
      assert.equal(await balance("month", m), 10);
      await to("month", "2026-02-28T23:00:00.000Z");
      assert.equal(await balance("month", m), 0);

      const q = await join("quarter", "quarter");
      await to("quarter", "2026-01-15T00:00:00.000Z");
      assert.equal((await earn("quarter", q, 10)).transaction.expiresAt, "2026-04-01T00:00:00.000Z");
      await to("quarter", "2026-03-31T23:59:59.999Z");
      assert.equal(await balance("quarter", q), 10);
      await to("quarter", "2026-04-01T00:00:00.000Z");
      assert.equal(await balance("quarter", q), 0);
    });

    test("calendar: earned in 2026, expires on 31 March 2027; the change applied to lots earned after it", async () => {
      const c = await join("cal", "cal");
      await to("cal", "2026-01-15T00:00:00.000Z");
      assert.equal((await earn("cal", c, 10)).transaction.expiresAt, "2027-03-31T00:00:00.000Z");
      // The lot earned before the change keeps its rolling month.
      const changed = await call("cal", "GET", `${C("cal", CHANGED)}/balance`);
      assert.deepEqual(
        changed.lots.map((l: { expiresAt: string }) => l.expiresAt),
        ["2026-02-01T00:00:00.000Z"],
      );
      await to("cal", "2026-02-01T00:00:00.000Z");
      assert.equal(await balance("cal", CHANGED), 0);
      await to("cal", "2027-03-30T23:59:59.999Z");
      assert.equal(await balance("cal", c), 10);
      await to("cal", "2027-03-31T00:00:00.000Z");
      assert.equal(await balance("cal", c), 0);
    });

    test("inactivity: the whole balance after 30 days without earn or spend, reset by one earn; none: never", async () => {
      const i1 = await join("idle", "i1");
      const i2 = await join("idle", "i2");
      assert.equal((await earn("idle", i1, 10)).transaction.expiresAt, null);
      await earn("idle", i2, 10);
      await to("idle", "2026-01-20T00:00:00.000Z");
      await earn("idle", i2, 5);
      await to("idle", "2026-01-30T23:59:59.999Z");
      assert.equal(await balance("idle", i1), 10);
      await to("idle", "2026-01-31T00:00:00.000Z");
      assert.equal(await balance("idle", i1), 0);
      assert.equal(await balance("idle", i2), 15);
      const explained = await call("idle", "GET", `${C("idle", i2)}/balance`);
      assert.deepEqual(
        explained.lots.map((l: { expiresAt: string }) => l.expiresAt),
        ["2026-02-19T00:00:00.000Z", "2026-02-19T00:00:00.000Z"],
      );
      await to("idle", "2026-02-18T23:59:59.999Z");
      assert.equal(await balance("idle", i2), 15);
      await to("idle", "2026-02-19T00:00:00.000Z");
      assert.equal(await balance("idle", i2), 0);

      const never = await join("none", "none");
      assert.equal((await earn("none", never, 10)).transaction.expiresAt, null);
      await to("none", "2027-12-31T00:00:00.000Z");
      assert.equal(await balance("none", never), 10);
    });

    test("overrides: a campaign with pendingDays 14 and a flow until confirmed, on a program spendable at once", async () => {
      const started = Date.now();
      const email = await join("over", "over");
      await call("over", "PUT", `${P("over")}/event-types/order`, {
        attributes: { total: { type: "number", required: true } },
      });
      const body = {
        name: "Order points",
        trigger: { event: "order" },
        effects: [{ type: "award_points", per: "event.total", rate: 1, round: "down" }],
        pendingDays: 14,
      };
      // One override or the other; none on a lifecycle campaign (its points belong to no order).
      const both = await app.api("POST", `${P("over")}/campaigns`, {
        key: app.p.over.key,
        body: { ...body, pending: "until_confirmed" },
      });
      assertProblem(both, 400, "validation_failed");
      assert.match(both.text, /pendingDays/);
      const lifecycle = { ...body, trigger: { lifecycle: "birthday" }, effects: [{ type: "award_points", points: 5 }] };
      assertProblem(
        await app.api("POST", `${P("over")}/campaigns`, { key: app.p.over.key, body: lifecycle }),
        400,
        "validation_failed",
      );
      const campaign = await call("over", "POST", `${P("over")}/campaigns`, body, 201);
      assert.equal(campaign.draft.pendingDays, 14);
      await call("over", "POST", `${P("over")}/campaigns/${campaign.id}/activate`);
      const frozen = await call("over", "GET", `${P("over")}/campaigns/${campaign.id}`);
      assert.equal(frozen.versions[0].definition.pendingDays, 14, "the override is part of the frozen version");

      const events = `${C("over", email)}/events`;
      const order = (orderId: string, total: number) => ({ type: "order", orderId, attributes: { total } });
      const dry = await call("over", "POST", `${events}?dryRun=true`, order("k-1", 100));
      assert.deepEqual(dry.effects[0].pending, { id: null, maturesAt: "2026-01-15T00:00:00.000Z" });
      const live = await call("over", "POST", events, order("k-1", 100));
      assert.equal(live.effects[0].points, 100);
      assert.equal(live.effects[0].transactionId, null);
      assert.equal(live.effects[0].pending.maturesAt, "2026-01-15T00:00:00.000Z");
      assert.equal(live.balance, 0);
      const read = (await call("over", "GET", C("over", email))).loyaltyData;
      assert.deepEqual([read.balance, read.pendingPoints, read.pending[0].id], [0, 100, live.effects[0].pending.id]);
      // A refund before maturity cancels the campaign's pending points; the spendable balance is not touched.
      await call("over", "POST", events, order("k-2", 40));
      const refunded = await call("over", "POST", `${P("over")}/orders/k-2/refund`, { reason: "returned" });
      assert.deepEqual([refunded.pendingCancelled, refunded.pointsReversed], [40, 0]);
      assert.equal(await balance("over", email), 0);
      await to("over", "2026-01-14T23:59:59.999Z");
      assert.equal(await balance("over", email), 0);
      await to("over", "2026-01-15T00:00:00.000Z");
      assert.equal(await balance("over", email), 100);
      const [entry] = (await call("over", "GET", `${C("over", email)}/transactions?limit=1`)).data;
      assert.deepEqual([entry.type, entry.points, entry.orderId], ["earn", 100, "k-1"]);
      assert.equal(entry.metadata.campaignId, campaign.id);
      assert.equal(entry.metadata.pendingId, live.effects[0].pending.id);

      // A simulation replays through the same rules: a draft with 30 days keeps k-1's points pending at the end of
      // the window, 14 days matured them; k-2's refund cancelled its pending points in both replays.
      await call("over", "PUT", `${P("over")}/campaigns/${campaign.id}`, { ...body, pendingDays: 30 });
      const window = { from: START, to: "2026-01-20T00:00:00.000Z" };
      const sim = await call("over", "POST", `${P("over")}/campaigns/${campaign.id}/simulate`, window);
      assert.deepEqual(sim.campaign.pending, { days: 30, untilConfirmed: false });
      assert.deepEqual([sim.baseline.pendingAtEnd, sim.baseline.outstanding], [0, 100]);
      assert.deepEqual([sim.candidate.pendingAtEnd, sim.candidate.outstanding], [100, 0]);
      assert.equal(sim.difference.liability.points, -100);

      // An earning flow pending until its order is confirmed, on the same program (spendable at once otherwise).
      const run = await call("over", "POST", `${C("over", email)}/earning-flows/delivered`, { orderId: "f-1" });
      assert.deepEqual([run.pointsEarned, run.balance, run.transaction], [30, 100, null]);
      assert.deepEqual([run.pending.points, run.pending.maturesAt, run.pending.orderId], [30, null, "f-1"]);
      await to("over", "2026-03-01T00:00:00.000Z");
      assert.equal(await balance("over", email), 100, "time does not mature it");
      const confirmed = await call("over", "POST", `${P("over")}/orders/f-1/confirm`);
      assert.equal(confirmed.pointsMatured, 30);
      assert.equal(await balance("over", email), 130);
      // An increase of this program is still spendable at once: the overrides are the campaign's and the flow's.
      assert.equal((await earn("over", email, 5)).balance, 135);
      console.log(`# overrides test: ${Date.now() - started} ms`);
    });

    test("a refund that cancels a campaign's pending points gives them back to its budget, also under concurrency", async () => {
      const started = Date.now();
      await call("over", "PUT", `${P("over")}/event-types/purchase`, {
        attributes: { total: { type: "number", required: true } },
      });
      const definition = {
        name: "Budgeted purchases",
        trigger: { event: "purchase" },
        effects: [{ type: "award_points", per: "event.total", rate: 1, round: "down" }],
        limits: { budgetPoints: 100, perCustomer: { count: 1, window: "lifetime" } },
        pendingDays: 14,
      };
      const budgeted = await call("over", "POST", `${P("over")}/campaigns`, definition, 201);
      await call("over", "POST", `${P("over")}/campaigns/${budgeted.id}/activate`);
      const used = async () =>
        (await call("over", "GET", `${P("over")}/campaigns/${budgeted.id}`)).budgetUsed as number;
      const buy = (email: string, orderId: string, total: number) =>
        call("over", "POST", `${C("over", email)}/events`, { type: "purchase", orderId, attributes: { total } });
      const refund = (orderId: string, part?: { amount: number; total: number }) =>
        call("over", "POST", `${P("over")}/orders/${orderId}/refund`, { reason: "returned", ...part });

      // Cancelled pending points were never given: the budget and the customer's one use come back.
      const ana = await join("over", "budget-ana");
      assert.equal((await buy(ana, "b-1", 60)).effects[0].points, 60);
      assert.equal(await used(), 60);
      assert.equal((await refund("b-1")).pendingCancelled, 60);
      assert.equal(await used(), 0);
      await to("over", "2026-03-01T00:01:00.000Z"); // the rest a minute later (a simulation orders by time)
      const again = await buy(ana, "b-2", 100);
      assert.deepEqual([again.effects[0]?.points, again.skipped], [100, []], "the whole budget and the use are back");
      // A partial refund gives back the part cancelled; the use stays taken while points of the row are left.
      assert.equal((await refund("b-2", { amount: 30, total: 100 })).pendingCancelled, 30);
      assert.equal(await used(), 70);
      assert.deepEqual((await buy(ana, "b-3", 10)).skipped, [
        { campaignId: budgeted.id, reason: "customer_limit_reached" },
      ]);
      assert.equal((await refund("b-2")).pendingCancelled, 70);
      assert.equal(await used(), 0);

      // Refunds cancelling while other customers' events spend the budget, all at once: every point given and every
      // point given back is counted once, and the budget is never overspent.
      const first = await Promise.all([0, 1, 2, 3].map((i) => join("over", `budget-${i}`)));
      for (const [i, email] of first.entries()) await buy(email, `c-${i}`, 20);
      assert.equal(await used(), 80);
      const second = await Promise.all([4, 5, 6, 7].map((i) => join("over", `budget-${i}`)));
      const outcomes = await Promise.all([
        ...[0, 1, 2, 3].map((i) => refund(`c-${i}`)),
        ...second.map((email, i) => buy(email, `d-${i}`, 20)),
      ]);
      const cancelled = outcomes.slice(0, 4).reduce((sum, r) => sum + r.pendingCancelled, 0);
      const given = outcomes.slice(4).reduce((sum, r) => sum + (r.effects[0]?.points ?? 0), 0);
      assert.equal(cancelled, 80);
      assert.ok(given >= 20 && given <= 80, `given ${given}`);
      assert.equal(await used(), 80 - cancelled + given);

      // A simulation replays the cancel by the same rule: b-2 gets its 100 in the replay too (budget and use back after
      // b-1's refund); the events of the minute after it are replayed before that minute's refunds (events before
      // entries at the same instant), so the budget is spent by then.
      await call("over", "PUT", `${P("over")}/campaigns/${budgeted.id}`, definition);
      const window = { from: "2026-03-01T00:00:00.000Z", to: "2026-03-01T00:01:00.001Z" };
      const sim = await call("over", "POST", `${P("over")}/campaigns/${budgeted.id}/simulate`, window);
      assert.deepEqual([sim.baseline.campaignPoints, sim.candidate.campaignPoints], [160, 160]);

      // A simulation starting after those events starts from the budget they still hold pending (never matured nor
      // cancelled by then): a purchase of 100 gets what is left of the budget, in the replay as live.
      await to("over", "2026-03-01T00:05:00.000Z");
      const late = await buy(await join("over", "budget-late"), "e-1", 100);
      assert.equal(late.effects[0]?.points ?? 0, 100 - given);
      const after = { from: "2026-03-01T00:04:00.000Z", to: "2026-03-01T00:05:00.001Z" };
      const replayed = await call("over", "POST", `${P("over")}/campaigns/${budgeted.id}/simulate`, after);
      assert.deepEqual(
        [replayed.baseline.campaignPoints, replayed.candidate.campaignPoints],
        [100 - given, 100 - given],
      );
      console.log(`# budget give-back test: ${Date.now() - started} ms`);
    });

    test("pendingCountsForTier: true counts pending points toward tiers at the earn; false (default) at maturity", async () => {
      const started = Date.now();
      const tierOf = async (name: Name, email: string) => {
        const c = await call(name, "GET", C(name, email));
        return [c.customerTier.currentTierPoints, c.customerTier.currentTier?.name ?? null];
      };
      const on = await join("tierOn", "on");
      const off = await join("tierOff", "off");
      await earn("tierOn", on, 150, "t-1");
      await earn("tierOff", off, 150, "t-1");
      assert.deepEqual(await tierOf("tierOn", on), [150, "Silver"], "counted at the earn: Silver at once");
      assert.deepEqual(await tierOf("tierOff", off), [0, "Bronze"], "the default: not before they mature");
      // A refund before maturity cancels pending points; their tier points go with them when they were counted.
      await earn("tierOn", on, 40, "t-2");
      await earn("tierOff", off, 40, "t-2");
      assert.deepEqual(await tierOf("tierOn", on), [190, "Silver"]);
      await call("tierOn", "POST", `${P("tierOn")}/orders/t-2/refund`, { reason: "returned" });
      await call("tierOff", "POST", `${P("tierOff")}/orders/t-2/refund`, { reason: "returned" });
      assert.deepEqual(await tierOf("tierOn", on), [150, "Silver"]);
      assert.deepEqual(await tierOf("tierOff", off), [0, "Bronze"]);
      await to("tierOn", "2026-01-08T00:00:00.000Z");
      await to("tierOff", "2026-01-08T00:00:00.000Z");
      assert.deepEqual(await tierOf("tierOn", on), [150, "Silver"], "not counted twice at maturity");
      assert.deepEqual(await tierOf("tierOff", off), [150, "Silver"], "counted when they matured");
      assert.equal(await balance("tierOn", on), 150);
      assert.equal(await balance("tierOff", off), 150);
      console.log(`# pendingCountsForTier test: ${Date.now() - started} ms`);
    });

    test("the webhooks' events: points.pending, points.matured, points.expiring", async () => {
      await app.stopAll();
      const events = await app.query<{ type: string; at: string; data: Record<string, unknown> }>(
        `SELECT type, to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, data
         FROM "Event" WHERE "programId" IN ($1::uuid, $2::uuid, $3::uuid) AND type LIKE 'points.%'`,
        [app.p.pend.programId, app.p.conf.programId, app.p.idle.programId],
      );
      // Sorted by their content: events of one instant have no order of their own.
      const of = (type: string) => events.filter((e) => e.type === type);
      const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
      assert.deepEqual(
        sorted(of("points.pending").map((e) => [e.data.points, e.data.orderId, e.data.maturesAt])),
        sorted([
          [100, "o-1", "2026-01-08T00:00:00.000Z"],
          [40, "o-2", "2026-01-08T00:00:00.000Z"],
          [80, "o-3", "2026-01-08T00:00:00.000Z"],
          [70, "c-1", null],
        ]),
      );
      assert.deepEqual(
        sorted(of("points.matured").map((e) => [e.at, e.data.points, e.data.orderId, e.data.confirmed])),
        sorted([
          ["2026-01-08T00:00:00.000Z", 100, "o-1", false],
          ["2026-01-08T00:00:00.000Z", 60, "o-3", false],
          ["2026-03-01T00:00:00.000Z", 70, "c-1", true],
        ]),
      );
      assert.deepEqual(
        sorted(of("points.expiring").map((e) => [e.at, e.data.points, e.data.expiresAt])),
        sorted([
          ["2026-01-26T00:00:00.000Z", 10, "2026-01-31T00:00:00.000Z"],
          ["2026-02-14T00:00:00.000Z", 15, "2026-02-19T00:00:00.000Z"],
        ]),
      );
    });
  });
}
