/**
 * The dashboard's configuration routes (tiers, earning flows, rewards, coupon pools, program settings, new
 * programs) on the built app with real staff sessions, on each backend: what each role may do, validation at the
 * field, another program's ids as 404, the audit rows, and what the changes do to customers and to /v1 —
 * customers on a removed or re-thresholded tier are re-evaluated in the same transaction (lib/domain/tiers.ts).
 * A test program's clock from the dashboard (app/api/staff/[programId]/clock/…): who reads it and who moves it, the
 * dry run's preview storing nothing, an advance refused on a live program, a double submit answered by one advance,
 * each advance stored (also one made through /v1) and audited, the clock page. One stack per backend; the database is read at the end (after the app stops, for PGlite).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { createApiKey } from "@/lib/domain/api-keys";
import { applyUserBatch } from "@/lib/domain/customers";
import { createCouponPool, importCoupons } from "@/lib/domain/coupons";
import { createEarningFlow } from "@/lib/domain/earning-flows";
import { increaseBalance } from "@/lib/domain/points";
import { createProgram } from "@/lib/domain/programs";
import { createReward } from "@/lib/domain/rewards";
import { createStaff } from "@/lib/domain/staff";
import { ROLES, type Role } from "@/lib/domain/vocabulary";
import { programWithTiersIn, type ProgramFixture } from "../support/fixtures";
import { BACKENDS, MIGRATED_ONLY, customerPath, openStack, type AppInstance, type Stack } from "../support/stack";
import { signIn, staffCall } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";
const tag = Math.random().toString(36).slice(2, 8);
const email = (label: string) => `${label}.${tag}@example.com`;

const firstErrorPath = (json: unknown) => (json as { errors?: { path: string }[] } | null)?.errors?.[0]?.path;

interface World {
  a: ProgramFixture;
  b: ProgramFixture;
  emails: Record<Role | "outsider", string>;
  /** Customers of A by the points they earned (tier points of the current period). */
  customers: Record<"c1200" | "c3000" | "c5200" | "c0", string>;
  flowId: string;
  poolId: string;
  otherPoolName: string;
  rewardId: string;
  /** The program the owner creates in the last route test. */
  createdProgramId?: string;
  /** Test program T (clock at T_START, points expire after 12 months): every role of A is a member; its key. */
  t: { programId: string; key: string; customer: string };
}

/** Program T's clock, and where the tests move it. */
const T_START = "2026-01-01T00:00:00.000Z";
const T_13 = "2027-02-01T00:00:00.000Z";
const T_14 = "2027-03-01T00:00:00.000Z";
const T_15 = "2027-04-01T00:00:00.000Z";

async function customer(prisma: PrismaClient, programId: string, label: string, points: number) {
  const address = email(label);
  await prisma.$transaction((tx) => applyUserBatch(tx, programId, [{ email: address, feature: "user", payload: {} }]));
  const { id } = (await prisma.customer.findFirst({ where: { programId, email: address }, select: { id: true } }))!;
  if (points)
    await prisma.$transaction((tx) =>
      increaseBalance(tx, { programId, customerId: id, points, source: "api", actor: "test" }),
    );
  return address;
}

async function buildWorld(prisma: PrismaClient): Promise<World> {
  const a = await programWithTiersIn(prisma, "Config A");
  const b = await programWithTiersIn(prisma, "Config B");
  const emails = {} as World["emails"];
  for (const role of ROLES) {
    emails[role] = email(role);
    await createStaff(prisma, { email: emails[role], password: PASSWORD, programId: a.programId, role });
  }
  emails.outsider = email("outsider");
  await createStaff(prisma, { email: emails.outsider, password: PASSWORD, programId: b.programId, role: "owner" });
  const customers = {
    c0: await customer(prisma, a.programId, "c0", 0),
    c1200: await customer(prisma, a.programId, "c1200", 1200),
    c3000: await customer(prisma, a.programId, "c3000", 3000),
    c5200: await customer(prisma, a.programId, "c5200", 5200),
  };
  const { earningFlowId: flowId } = await createEarningFlow(prisma, {
    programId: a.programId,
    key: "visit",
    points: 10,
  });
  const { couponPoolId: poolId } = await createCouponPool(prisma, { programId: a.programId, name: "Spring" });
  await createCouponPool(prisma, { programId: a.programId, name: "Autumn" });
  await importCoupons(prisma, poolId, ["SPRING-1", "SPRING-2", "SPRING-3"]);
  const { rewardId } = await createReward(prisma, { programId: a.programId, name: "Mug", costPoints: 100 });
  const { programId: tId } = await createProgram(prisma, {
    name: "Config T",
    test: true,
    clockAt: new Date(T_START),
    pointsExpiryMonths: 12,
  });
  for (const role of ROLES)
    await createStaff(prisma, { email: emails[role], password: PASSWORD, programId: tId, role });
  const tCustomer = email("t500");
  await prisma.$transaction((tx) => applyUserBatch(tx, tId, [{ email: tCustomer, feature: "user", payload: {} }]));
  const { id: tCustomerId } = await prisma.customer.findFirstOrThrow({
    where: { programId: tId },
    select: { id: true },
  });
  // 500 points earned at T's clock: their lot expires on 2027-01-01.
  await prisma.$transaction((tx) =>
    increaseBalance(tx, {
      programId: tId,
      customerId: tCustomerId,
      points: 500,
      source: "api",
      actor: "test",
      now: new Date(T_START),
    }),
  );
  const { key: tKey } = await createApiKey(prisma, { programId: tId, name: "T" });
  return {
    a,
    b,
    emails,
    customers,
    flowId,
    poolId,
    otherPoolName: "Autumn",
    rewardId,
    t: { programId: tId, key: tKey, customer: tCustomer },
  };
}

for (const backend of BACKENDS) {
  describe(`Dashboard configuration routes [${backend}]`, () => {
    let stack: Stack<{ key?: string }>;
    let app: AppInstance;
    let world: World;
    const cookies = {} as Record<Role | "outsider", string>;

    before(async () => {
      stack = await openStack(backend, MIGRATED_ONLY);
      world = await stack.withPrisma(buildWorld);
      app = await stack.start({
        AUTH_SECRET_FILE: path.join(os.tmpdir(), `loyalty-auth-secret-${process.pid}-config-${backend}`),
      });
      for (const who of [...ROLES, "outsider"] as const) {
        const cookie = await signIn(app.baseUrl, world.emails[who], PASSWORD);
        assert.ok(cookie, `${who} could not sign in`);
        cookies[who] = cookie;
      }
    });
    after(() => stack?.close());

    const staff = (
      who: Role | "outsider",
      method: string,
      route: string,
      body?: unknown,
      headers?: Record<string, string>,
    ) => staffCall(app.baseUrl, cookies[who], method, `/api/staff/${world.a.programId}${route}`, body, headers);
    const v1 = (method: string, route: string, body?: unknown) => app.api(method, route, { key: world.a.key, body });
    const tierOf = async (address: string) => {
      const res = await v1("GET", customerPath(world.a.programId, address));
      assert.equal(res.status, 200, res.text);
      return {
        tierId: res.json.customerTier.currentTierId as string | null,
        status: res.json.loyaltyData.tierStatus as string,
      };
    };

    test("roles below manager, and outsiders, are refused every configuration write; nothing changes", async () => {
      const writes: [string, string, unknown][] = [
        ["PATCH", `/tiers/${world.a.tiers.gold}`, { name: "Platinum" }],
        ["DELETE", `/tiers/${world.a.tiers.gold}`, undefined],
        ["PATCH", `/earning-flows/${world.flowId}`, { points: 99 }],
        ["PUT", `/earning-flows/${world.flowId}/active`, { active: false }],
        ["PATCH", `/coupon-pools/${world.poolId}`, { name: "Renamed" }],
        ["PATCH", `/rewards/${world.rewardId}`, { name: "Renamed" }],
        [
          "PATCH",
          "/settings",
          {
            name: "Renamed",
            pointsExpiryMonths: null,
            tierPeriodMonths: 12,
            timeZone: "UTC",
            adjustCeilingSupport: 1,
            adjustCeilingManager: 1,
          },
        ],
      ];
      for (const who of ["support", "viewer", "outsider"] as const) {
        for (const [method, route, body] of writes) {
          const res = await staff(who, method, route, body);
          assert.equal(res.status, 403, `${who} ${method} ${route}: ${res.text}`);
          assert.equal(res.json?.code, "forbidden");
        }
      }
      // A new program: owners only.
      for (const who of ["manager", "support", "viewer"] as const) {
        const res = await staff(who, "POST", "/programs", { name: `By ${who}` });
        assert.equal(res.status, 403, `${who}: ${res.text}`);
      }
      assert.equal((await tierOf(world.customers.c5200)).tierId, world.a.tiers.gold);
    });

    test("another program's tier, flow, pool or reward is 404 through this program's routes", async () => {
      const { b } = world;
      for (const [method, route, body, code] of [
        ["PATCH", `/tiers/${b.tiers.gold}`, { name: "X" }, "not_found"],
        ["DELETE", `/tiers/${b.tiers.silver}`, undefined, "not_found"],
        ["PATCH", `/tiers/not-a-uuid`, { name: "X" }, "not_found"],
        ["PATCH", `/earning-flows/${b.tiers.gold}`, { points: 5 }, "not_found"],
        ["PUT", `/earning-flows/nope/active`, { active: false }, "not_found"],
        ["PATCH", `/coupon-pools/${b.tiers.gold}`, { name: "X" }, "coupon_pool_not_found"],
        ["PATCH", `/rewards/${b.tiers.gold}`, { name: "X" }, "reward_not_found"],
      ] as const) {
        const res = await staff("manager", method, route, body);
        assert.equal(res.status, 404, `${method} ${route}: ${res.text}`);
        assert.equal(res.json?.code, code);
      }
    });

    test("invalid input is refused at the field (400) and changes nothing", async () => {
      const settings = await staff("manager", "PATCH", "/settings", {
        name: "",
        pointsExpiryMonths: 0,
        tierPeriodMonths: 500,
        timeZone: "Mars/Olympus",
        adjustCeilingSupport: -1,
        adjustCeilingManager: null,
      });
      assert.equal(settings.status, 400);
      const paths = (settings.json?.errors as { path: string }[]).map((e) => e.path).sort();
      assert.deepEqual(paths, ["adjustCeilingSupport", "name", "pointsExpiryMonths", "tierPeriodMonths", "timeZone"]);
      const tier = await staff("manager", "PATCH", `/tiers/${world.a.tiers.silver}`, { requiredPoints: -5 });
      assert.equal(tier.status, 400);
      assert.equal(firstErrorPath(tier.json), "requiredPoints");
      const flow = await staff("manager", "PATCH", `/earning-flows/${world.flowId}`, { points: 5, pointsPerUnit: 2 });
      assert.equal(flow.status, 400);
      const dupe = await staff("manager", "PATCH", `/coupon-pools/${world.poolId}`, { name: world.otherPoolName });
      assert.equal(dupe.status, 409);
      const tierName = await staff("manager", "PATCH", `/tiers/${world.a.tiers.silver}`, { name: "Gold" });
      assert.equal(tierName.status, 409);
      const minTier = await staff("manager", "PATCH", `/rewards/${world.rewardId}`, { minTierId: world.b.tiers.gold });
      assert.equal(minTier.status, 400);
      assert.equal(firstErrorPath(minTier.json), "minTierId");
      assert.equal((await tierOf(world.customers.c1200)).tierId, world.a.tiers.silver);
    });

    test("a tier's threshold falls: customers who now reach it move up at once, in the same request", async () => {
      assert.equal((await tierOf(world.customers.c3000)).tierId, world.a.tiers.silver);
      const res = await staff("manager", "PATCH", `/tiers/${world.a.tiers.gold}`, { requiredPoints: 2500, factor: 2 });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json?.requiredPoints, 2500);
      assert.equal(res.json?.customersMoved, 1);
      assert.deepEqual(await tierOf(world.customers.c3000), { tierId: world.a.tiers.gold, status: "earned" });
      assert.deepEqual(await tierOf(world.customers.c5200), { tierId: world.a.tiers.gold, status: "earned" });
      assert.deepEqual(await tierOf(world.customers.c1200), { tierId: world.a.tiers.silver, status: "earned" });
    });

    test("a tier's threshold rises above its holders' points: they move to the best tier they still reach", async () => {
      const res = await staff("owner", "PATCH", `/tiers/${world.a.tiers.gold}`, { requiredPoints: 6000 });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json?.customersMoved, 2);
      assert.deepEqual(await tierOf(world.customers.c3000), { tierId: world.a.tiers.silver, status: "earned" });
      assert.deepEqual(await tierOf(world.customers.c5200), { tierId: world.a.tiers.silver, status: "earned" });
    });

    test("a removed tier leaves no customer on it; a tier a reward requires cannot be removed", async () => {
      const requires = await staff("manager", "PATCH", `/rewards/${world.rewardId}`, {
        minTierId: world.a.tiers.silver,
      });
      assert.equal(requires.status, 200, requires.text);
      const refused = await staff("manager", "DELETE", `/tiers/${world.a.tiers.silver}`);
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.json?.code, "conflict");
      assert.equal((await staff("manager", "PATCH", `/rewards/${world.rewardId}`, { minTierId: null })).status, 200);

      const res = await staff("manager", "DELETE", `/tiers/${world.a.tiers.silver}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json?.customersMoved, 3);
      for (const c of [world.customers.c1200, world.customers.c3000, world.customers.c5200])
        assert.deepEqual(await tierOf(c), { tierId: world.a.tiers.bronze, status: "base" });
      assert.deepEqual(await tierOf(world.customers.c0), { tierId: world.a.tiers.bronze, status: "base" });
      const tiers = await v1("GET", `/v1/programs/${world.a.programId}/tiers`);
      assert.deepEqual(
        (tiers.json.data as { name: string }[]).map((t) => t.name),
        ["Bronze", "Gold"],
      );
    });

    test("an earning flow is redefined, and a deactivated one refuses runs until it is reactivated", async () => {
      const run = () => v1("POST", `${customerPath(world.a.programId, world.customers.c0)}/earning-flows/visit`, {});
      const edit = await staff("manager", "PATCH", `/earning-flows/${world.flowId}`, {
        name: "Store visit",
        points: 25,
        capTotal: 50,
      });
      assert.equal(edit.status, 200, edit.text);
      assert.equal(edit.json?.points, 25);
      assert.equal((await run()).json?.pointsEarned, 25);
      const off = await staff("manager", "PUT", `/earning-flows/${world.flowId}/active`, { active: false });
      assert.equal(off.status, 200, off.text);
      const refused = await run();
      assert.equal(refused.status, 404);
      assert.equal(refused.json?.code, "earning_flow_not_found");
      assert.equal(
        (await staff("manager", "PUT", `/earning-flows/${world.flowId}/active`, { active: true })).status,
        200,
      );
      assert.equal((await run()).json?.pointsEarned, 25);
      assert.equal((await run()).json?.capped, "cap_total");
    });

    test("a coupon pool is renamed; a deactivated pool refuses assignment with coupon_pool_inactive", async () => {
      const assign = () =>
        v1("POST", `${customerPath(world.a.programId, world.customers.c1200)}/coupons`, { couponPoolId: world.poolId });
      const renamed = await staff("manager", "PATCH", `/coupon-pools/${world.poolId}`, { name: "Spring 2027" });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.json?.name, "Spring 2027");
      assert.equal((await assign()).status, 201);
      assert.equal((await staff("manager", "PATCH", `/coupon-pools/${world.poolId}`, { active: false })).status, 200);
      const refused = await assign();
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.json?.code, "coupon_pool_inactive");
    });

    test("a reward's every field is edited; its per-customer limit and minimum tier are enforced at redeem", async () => {
      const redeem = (address: string) =>
        v1("POST", `${customerPath(world.a.programId, address)}/rewards/${world.rewardId}/redeem`, {});
      const edit = await staff("manager", "PATCH", `/rewards/${world.rewardId}`, {
        name: "Big mug",
        description: "Holds a lot",
        image: "https://cdn.example.com/mug.png",
        costPoints: 50,
        stock: 10,
        active: true,
        perCustomerLimit: 1,
        minTierId: world.a.tiers.gold,
      });
      assert.equal(edit.status, 200, edit.text);
      assert.equal(edit.json?.perCustomerLimit, 1);
      // c1200 is on Bronze now (Silver was removed), below Gold.
      const low = await redeem(world.customers.c1200);
      assert.equal(low.status, 409, low.text);
      assert.equal(low.json?.code, "reward_tier_required");
      assert.equal((await staff("manager", "PATCH", `/rewards/${world.rewardId}`, { minTierId: null })).status, 200);
      assert.equal((await redeem(world.customers.c1200)).status, 201);
      const again = await redeem(world.customers.c1200);
      assert.equal(again.status, 409, again.text);
      assert.equal(again.json?.code, "reward_limit_reached");
      assert.equal((await redeem(world.customers.c3000)).status, 201);
    });

    test("program settings are saved; an owner creates a program and becomes its owner", async () => {
      const settings = {
        name: "Config A renamed",
        pointsExpiryMonths: 18,
        tierPeriodMonths: 6,
        timeZone: "Europe/Madrid",
        adjustCeilingSupport: 500,
        adjustCeilingManager: null,
      };
      const saved = await staff("manager", "PATCH", "/settings", settings);
      assert.equal(saved.status, 200, saved.text);
      // A setting the request leaves out keeps its value: the redemption cancel window's default.
      assert.deepEqual(
        { ...saved.json, id: undefined, version: undefined },
        { ...settings, redemptionCancelHours: 24, allowedOrigins: [], id: undefined, version: undefined },
      );
      // The web origins allowed to call /me (CORS): refused whole unless each is an origin; stored as browsers send it.
      const badOrigins = await staff("manager", "PATCH", "/settings", {
        ...settings,
        allowedOrigins: ["https://a.example/x"],
      });
      assert.equal(badOrigins.status, 400, badOrigins.text);
      assert.deepEqual(
        (badOrigins.json?.errors as { path: string }[]).map((e) => e.path),
        ["allowedOrigins"],
      );
      const origins = await staff("manager", "PATCH", "/settings", {
        ...settings,
        allowedOrigins: ["https://Shop.Example.com/", "http://localhost:5173"],
      });
      assert.equal(origins.status, 200, origins.text);
      assert.deepEqual(origins.json?.allowedOrigins, ["https://shop.example.com", "http://localhost:5173"]);
      const created = await staff("owner", "POST", "/programs", { name: "Config C" });
      assert.equal(created.status, 201, created.text);
      const programId = created.json?.programId as string;
      // The owner now reaches the new program's pages and routes; the manager of A does not.
      const page = await fetch(`${app.baseUrl}/dashboard/${programId}/settings`, {
        headers: { cookie: cookies.owner },
        redirect: "manual",
      });
      assert.equal(page.status, 200);
      const mine = await staffCall(app.baseUrl, cookies.owner, "PATCH", `/api/staff/${programId}/settings`, {
        ...settings,
        name: "Config C",
      });
      assert.equal(mine.status, 200, mine.text);
      const notMine = await staffCall(
        app.baseUrl,
        cookies.manager,
        "PATCH",
        `/api/staff/${programId}/settings`,
        settings,
      );
      assert.equal(notMine.status, 403);
      world.createdProgramId = programId;
    });

    test("a test program's clock from the dashboard: roles, dry run, advance, a double submit, live refused", async () => {
      const t = world.t.programId;
      const call = (who: Role | "outsider", method: string, route: string, body?: unknown, programId = t) =>
        staffCall(app.baseUrl, cookies[who], method, `/api/staff/${programId}/clock${route}`, body);
      const preview = (who: Role | "outsider", to?: string) =>
        call(who, "GET", `/preview${to === undefined ? "" : `?to=${encodeURIComponent(to)}`}`);
      const now = async () => (await call("viewer", "GET", "")).json?.now;

      // Every member reads the clock; outsiders do not.
      for (const who of ROLES) {
        const res = await call(who, "GET", "");
        assert.equal(res.status, 200, `${who}: ${res.text}`);
        assert.deepEqual(res.json, { now: T_START, mode: "test" });
      }
      assert.equal((await call("outsider", "GET", "")).status, 403);

      // The dry run: managers and owners; its report with the customer's e-mail; nothing stored.
      for (const who of ["support", "viewer", "outsider"] as const)
        assert.equal((await preview(who, T_13)).status, 403, who);
      const dry = await preview("manager", T_13);
      assert.equal(dry.status, 200, dry.text);
      assert.deepEqual(dry.json, {
        from: T_START,
        to: T_13,
        applied: {
          expiredLots: 1,
          expiredPoints: 500,
          tierChanges: 0,
          pendingActivated: 0,
          lifecycleFired: 0,
          webhooks: 1,
        },
        steps: 1,
        timelineTotal: 1,
        timeline: [
          {
            at: "2027-01-01T00:00:00.000Z",
            kind: "points.expired",
            direction: null,
            customerId: (dry.json?.timeline as { customerId: string }[])[0]?.customerId,
            customerEmail: world.t.customer,
            detail: "500 points expired (1 lot)",
          },
        ],
      });
      for (const to of [undefined, "2025-12-31T00:00:00Z", "2028-01-02T00:00:00Z", "next year"]) {
        const res = await preview("owner", to);
        assert.equal(res.status, 400, `${to}: ${res.text}`);
        assert.equal(res.json?.code, "validation_failed");
        assert.equal(firstErrorPath(res.json), "to");
      }
      assert.equal(await now(), T_START, "a dry run moves nothing");

      // The advance: refused below manager, on a live program and without a request id; nothing changes.
      const first = { to: T_13, requestId: randomUUID() };
      for (const who of ["support", "viewer", "outsider"] as const)
        assert.equal((await call(who, "POST", "/advance", first)).status, 403, who);
      const live = await call("owner", "POST", "/advance", first, world.a.programId);
      assert.equal(live.status, 409, live.text);
      assert.equal(live.json?.code, "program_not_test");
      const noId = await call("manager", "POST", "/advance", { to: T_13 });
      assert.equal(noId.status, 400, noId.text);
      assert.equal(firstErrorPath(noId.json), "requestId");
      assert.equal(await now(), T_START);

      const applied = await call("manager", "POST", "/advance", first);
      assert.equal(applied.status, 200, applied.text);
      assert.equal(applied.json?.replayed, false);
      const { timeline: _timeline, ...wouldDo } = dry.json ?? {};
      const { advanceId: _id, replayed: _replayed, ...did } = applied.json ?? {};
      assert.deepEqual(did, wouldDo, "the advance did what its dry run said");
      assert.equal(await now(), T_13);
      // The same submit again (a second click, a retried request): its advance is answered, nothing more is done.
      const again = await call("owner", "POST", "/advance", first);
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.json, { ...applied.json, replayed: true });
      assert.equal(await now(), T_13);
      // Two submits of one request at once: one advance, answered to both.
      const second = { to: T_14, requestId: randomUUID() };
      const both = await Promise.all([1, 2].map(() => call("manager", "POST", "/advance", second)));
      assert.deepEqual(
        both.map((r) => r.status),
        [200, 200],
      );
      assert.equal(both[0]!.json?.advanceId, both[1]!.json?.advanceId);
      assert.deepEqual(both.map((r) => r.json?.replayed).sort(), [false, true]);
      assert.equal(await now(), T_14);

      // Through /v1 too: an applied advance is stored, a dry run is not (read at the end).
      const key = world.t.key;
      const path = `/v1/programs/${t}/clock/advance`;
      assert.equal((await app.api("POST", path, { key, body: { to: T_15, dryRun: true } })).status, 200);
      assert.equal((await app.api("POST", path, { key, body: { to: T_15 } })).status, 200);

      // The clock page: every member reads an advance's timeline; a live program has none.
      const page = await fetch(`${app.baseUrl}/dashboard/${t}/clock?advance=${applied.json?.advanceId}`, {
        headers: { cookie: cookies.viewer },
        redirect: "manual",
      });
      const html = await page.text();
      assert.equal(page.status, 200);
      assert.ok(html.includes(world.t.customer) && html.includes("500 points expired (1 lot)"), "the timeline row");
      const livePage = await fetch(`${app.baseUrl}/dashboard/${world.a.programId}/clock`, {
        headers: { cookie: cookies.owner },
        redirect: "manual",
      });
      assert.equal(livePage.status, 404, "a not-found page answers 404");
      const liveHtml = await livePage.text();
      assert.ok(liveHtml.includes("Not found"), "a live program's clock page is not found");
      assert.ok(!liveHtml.includes("The clock stands at"), "a live program has no clock");

      // A manager may make a test copy (and becomes its owner); support may not.
      assert.equal((await staff("support", "POST", "/programs/test-copy", { name: "Copy" })).status, 403);
      const copy = await staff("manager", "POST", "/programs/test-copy", { name: "Config A (test)" });
      assert.equal(copy.status, 201, copy.text);
    });

    test("campaigns: managers declare, build, activate, pause, resume and end; every role with customers tries it; nothing else moves", async () => {
      const purchase = { type: "purchase", attributes: { total: { type: "number", required: true } } };
      const body = {
        name: "Weekend bonus",
        trigger: { event: "purchase" },
        conditions: { all: [{ attr: "event.total", op: "gte", value: 10 }] },
        effects: [{ type: "award_points", per: "event.total", rate: 1, round: "down", tierFactor: false }],
        schedule: { daysOfWeek: [6, 7] },
      };
      // Refused for every role below manager and for outsiders, before anything is declared.
      for (const who of ["support", "viewer", "outsider"] as const) {
        for (const [method, route, b] of [
          ["PUT", "/event-types", purchase],
          ["POST", "/campaigns", body],
        ] as const) {
          const res = await staff(who, method, route, b);
          assert.equal(res.status, 403, `${who} ${method} ${route}: ${res.text}`);
          assert.equal(res.json?.code, "forbidden");
        }
      }
      const declared = await staff("manager", "PUT", "/event-types", purchase);
      assert.equal(declared.status, 200, declared.text);
      assert.equal(declared.json?.created, true);
      // Refusals name their field: the effect's shape (the schema), an attribute the trigger does not declare (the domain).
      const both = await staff("manager", "POST", "/campaigns", {
        ...body,
        effects: [{ type: "award_points", points: 5, per: "event.total" }],
      });
      assert.equal(both.status, 400, both.text);
      assert.equal(firstErrorPath(both.json), "effects[0].points");
      const unknown = await staff("manager", "POST", "/campaigns", {
        ...body,
        conditions: { all: [{ attr: "event.totl", op: "gte", value: 10 }] },
      });
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(firstErrorPath(unknown.json), "conditions.all[0].attr");
      const created = await staff("manager", "POST", "/campaigns", body);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json?.status, "draft");
      const id = created.json?.id as string;
      // The draft's page renders for a manager with its editor (a server page hands the client builder plain data).
      const draftPage = await fetch(`${app.baseUrl}/dashboard/${world.a.programId}/campaigns/${id}`, {
        headers: { cookie: cookies.manager },
        redirect: "manual",
      });
      const draftHtml = await draftPage.text();
      assert.match(draftHtml, /Edit draft/);
      assert.doesNotMatch(draftHtml, /could not load/);
      const move = (who: Role | "outsider", m: string) => staff(who, "POST", `/campaigns/${id}/status`, { move: m });
      // Try it: a Saturday and a Monday in Madrid (the program's zone by now); the draft is tried before activation.
      const attempt = (who: Role | "outsider", occurredAt: string) =>
        staff(who, "POST", `/campaigns/${id}/try`, {
          email: world.customers.c0,
          occurredAt,
          attributes: { total: 120 },
        });
      for (const who of ["manager", "support", "viewer"] as const) {
        const saturday = await attempt(who, "2026-11-21T12:00:00Z");
        assert.equal(saturday.status, 200, `${who}: ${saturday.text}`);
        assert.equal(saturday.json?.previewedDraft, true);
        assert.deepEqual(
          (saturday.json?.effects as { campaignId: string; points: number }[]).map((e) => [e.campaignId, e.points]),
          [[id, 120]],
        );
      }
      const monday = await attempt("viewer", "2026-11-23T12:00:00Z");
      assert.deepEqual(monday.json?.skipped, [{ campaignId: id, reason: "outside_schedule" }]);
      assert.equal((await attempt("outsider", "2026-11-21T12:00:00Z")).status, 403);
      const badTry = await staff("manager", "POST", `/campaigns/${id}/try`, {
        email: world.customers.c0,
        attributes: { total: "lots" },
      });
      assert.equal(badTry.status, 400, badTry.text);
      assert.equal(firstErrorPath(badTry.json), "attributes.total");
      // Status moves: managers only; a move that does not apply is 409 and changes nothing.
      for (const who of ["support", "viewer", "outsider"] as const) {
        const res = await move(who, "activate");
        assert.equal(res.status, 403, `${who}: ${res.text}`);
      }
      assert.equal((await move("manager", "pause")).status, 409);
      const active = await move("manager", "activate");
      assert.equal(active.status, 200, active.text);
      assert.deepEqual([active.json?.status, active.json?.version], ["active", 1]);
      assert.equal((await move("manager", "activate")).status, 409);
      assert.equal((await move("manager", "pause")).json?.status, "paused");
      assert.equal((await move("owner", "resume")).json?.status, "active");
      const change = await staff("manager", "PUT", `/campaigns/${id}`, { ...body, name: "Weekend bonus ×2" });
      assert.equal(change.status, 200, change.text);
      const second = await move("manager", "activate");
      assert.deepEqual([second.json?.version, second.json?.name], [2, "Weekend bonus ×2"]);
      assert.equal((await move("manager", "end")).json?.status, "ended");
      assert.equal((await move("manager", "resume")).status, 409);
      assert.equal(
        (await staff("manager", "POST", `/campaigns/${world.b.tiers.gold}/status`, { move: "end" })).status,
        404,
      );
      assert.equal((await staff("manager", "POST", `/campaigns/${id}/status`, { move: "restart" })).status, 400);
      // The pages: every role reads them; the builder and the status buttons are for managers and owners.
      const page = async (who: Role, route: string) => {
        const res = await fetch(`${app.baseUrl}/dashboard/${world.a.programId}${route}`, {
          headers: { cookie: cookies[who] },
          redirect: "manual",
        });
        return { status: res.status, html: await res.text() };
      };
      const managerList = await page("manager", "/campaigns");
      assert.equal(managerList.status, 200);
      assert.match(managerList.html, /Weekend bonus ×2/);
      assert.match(managerList.html, /Create campaign/);
      const viewerList = await page("viewer", "/campaigns");
      assert.match(viewerList.html, /Weekend bonus ×2/);
      assert.doesNotMatch(viewerList.html, /Create campaign|Declare event type/);
      const viewerDetail = await page("viewer", `/campaigns/${id}`);
      assert.match(viewerDetail.html, /Managers and owners activate/);
      assert.match(viewerDetail.html, /Try it/);
    });

    test("a test copy copies event types and campaigns: active with their version, the others as drafts, ended not", async () => {
      const A = `/v1/programs/${world.a.programId}`;
      const ok = async (res: { status: number; text: string; json: unknown }, status = 200) => {
        assert.equal(res.status, status, res.text);
        return res.json as Record<string, unknown> & { id: string };
      };
      const type = `copy.purchase.${backend}`;
      await ok(await v1("PUT", `${A}/event-types/${type}`, { attributes: { total: { type: "number" } } }));
      const body = (name: string, points: number) => ({
        name,
        trigger: { event: type },
        effects: [
          { type: "award_points", points },
          { type: "assign_coupon", couponPoolId: world.poolId },
        ],
      });
      const make = async (name: string, moves: string[], change?: object) => {
        const { id } = await ok(await v1("POST", `${A}/campaigns`, body(name, 5)), 201);
        for (const move of moves) await ok(await v1("POST", `${A}/campaigns/${id}/${move}`));
        if (change) await ok(await v1("PUT", `${A}/campaigns/${id}`, change));
        return id;
      };
      const active = await make("Runs", ["activate"], body("Runs more", 7));
      const paused = await make("Paused", ["activate", "pause"]);
      const draft = await make("Never activated", []);
      const ended = await make("Ended", ["activate", "end"]);

      // The dashboard's simulation of a draft: managers and owners; the last `days` days, up to 366.
      const simulated = await staff("manager", "POST", `/campaigns/${active}/simulate`, { days: 30 });
      assert.equal(simulated.status, 200, simulated.text);
      assert.deepEqual(
        [
          (simulated.json as { campaign: { name: string } }).campaign.name,
          (simulated.json as { replayed: object }).replayed,
        ],
        ["Runs more", { events: 0, entries: 0, customers: 0, skippedEvents: 0 }],
      );
      assert.equal((await staff("support", "POST", `/campaigns/${active}/simulate`, { days: 30 })).status, 403);
      assert.equal((await staff("manager", "POST", `/campaigns/${active}/simulate`, { days: 367 })).status, 400);
      assert.equal((await staff("manager", "POST", `/campaigns/${ended}/simulate`, { days: 30 })).status, 409);

      const copied = await staff("owner", "POST", "/programs/test-copy", { name: "Config A test copy" });
      assert.equal(copied.status, 201, copied.text);
      const copy = copied.json as {
        programId: string;
        campaigns: { sourceId: string; id: string | null; name: string; as: string; why: string }[];
      };
      const bySource = new Map(copy.campaigns.map((c) => [c.sourceId, c]));
      assert.deepEqual(
        [active, paused, draft, ended].map((id) => [bySource.get(id)?.name, bySource.get(id)?.as]),
        [
          ["Runs", "active"],
          ["Paused", "draft"],
          ["Never activated", "draft"],
          ["Ended", "not_copied"],
        ],
      );
      assert.match(bySource.get(active)!.why, /version 1 runs in the copy as version 1, its pending change kept/);
      assert.match(bySource.get(paused)!.why, /paused in the source/);
      assert.match(bySource.get(ended)!.why, /ended is final/);
      assert.equal(bySource.get(ended)!.id, null);

      // Read the copy through its own lk_test_ key: the owner of the source owns the copy.
      const key = await staffCall(app.baseUrl, cookies.owner, "POST", `/api/staff/${copy.programId}/api-keys`, {
        name: "copy",
        rateLimitPerSec: 100,
        rateLimitBurst: 200,
      });
      assert.equal(key.status, 201, key.text);
      const testKey = String(key.json!.key);
      assert.match(testKey, /^lk_test_/);
      const T = `/v1/programs/${copy.programId}`;
      const read = async (route: string) => ok(await app.api("GET", `${T}${route}`, { key: testKey }));
      assert.deepEqual((await read(`/event-types/${type}`)).attributes, { total: { type: "number" } });
      const runs = (await read(`/campaigns/${bySource.get(active)!.id}`)) as unknown as {
        status: string;
        version: number;
        draft: { name: string; effects: { couponPoolId?: string }[] };
        versions: { version: number; definition: { effects: { points?: number; couponPoolId?: string }[] } }[];
      };
      assert.equal(runs.status, "active");
      assert.equal(runs.version, 1);
      assert.deepEqual(
        runs.versions.map((v) => [v.version, v.definition.effects[0]!.points]),
        [[1, 5]],
      );
      assert.equal(runs.draft.name, "Runs more");
      // The coupon pool is the copy's pool of the same name, not the source's.
      const pool = runs.versions[0]!.definition.effects[1]!.couponPoolId!;
      assert.notEqual(pool, world.poolId);
      assert.equal(runs.draft.effects[1]!.couponPoolId, pool);
      const pausedCopy = await read(`/campaigns/${bySource.get(paused)!.id}`);
      assert.deepEqual(
        [pausedCopy.status, pausedCopy.version, (pausedCopy.draft as { name: string }).name],
        ["draft", null, "Paused"],
      );
      const list = (await read("/campaigns")) as unknown as { data: unknown[] };
      assert.equal(list.data.length, 3);
      // The copy's draft can be activated there.
      await ok(await app.api("POST", `${T}/campaigns/${bySource.get(draft)!.id}/activate`, { key: testKey }));
    });

    test("segments: managers build, change from the version shown and delete; every role with customers previews; members export; the campaigns naming it", async () => {
      const filter = { all: [{ attr: "customer.balance", op: "gte", value: 1000 }] };
      const body = { name: "Big balances", filter };
      for (const who of ["support", "viewer", "outsider"] as const) {
        const res = await staff(who, "POST", "/segments", body);
        assert.equal(res.status, 403, `${who}: ${res.text}`);
      }
      // The live count: every role that reads customers; it stores nothing.
      const preview = async (who: Role | "outsider", f: unknown) =>
        staff(who, "POST", "/segments/preview", { filter: f });
      const counted = await preview("viewer", filter);
      assert.equal(counted.status, 200, counted.text);
      const wide = counted.json as unknown as { count: number; sample: { email: string }[] };
      assert.ok(wide.count >= 1 && wide.sample.length === Math.min(wide.count, 20));
      assert.equal((await preview("outsider", filter)).status, 403);
      const bad = await preview("manager", { all: [{ attr: "customer.balanse", op: "gte", value: 1 }] });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(firstErrorPath(bad.json), "filter.all[0].attr");
      assert.equal((await v1("GET", `/v1/programs/${world.a.programId}/segments`)).json.data.length, 0);

      const created = await staff("manager", "POST", "/segments", body);
      assert.equal(created.status, 201, created.text);
      const id = created.json?.id as string;
      const shown = created.json?.updatedAt as string;
      // A change from the version shown; then the same stale version is refused and changes nothing.
      const narrow = { all: [{ attr: "customer.balance", op: "gte", value: 3000 }] };
      const changed = await staff(
        "manager",
        "PUT",
        `/segments/${id}`,
        { ...body, filter: narrow },
        { "if-match": `"${shown}"` },
      );
      assert.equal(changed.status, 200, changed.text);
      assert.ok(typeof changed.json?.version === "string");
      const stale = await staff(
        "owner",
        "PUT",
        `/segments/${id}`,
        { name: "Stale", filter },
        { "if-match": `"${shown}"` },
      );
      assert.equal(stale.status, 409, stale.text);
      assert.equal(stale.json?.code, "stale_edit");
      const stored = await v1("GET", `/v1/programs/${world.a.programId}/segments/${id}`);
      assert.deepEqual([stored.json.name, stored.json.filter], ["Big balances", narrow]);
      assert.equal((await staff("support", "PUT", `/segments/${id}`, body)).status, 403);
      assert.equal((await staff("support", "DELETE", `/segments/${id}`)).status, 403);
      assert.equal((await staff("manager", "PUT", `/segments/${world.b.tiers.gold}`, body)).status, 404);

      // The members export: the live count's customers, with the customers export's columns; managers only.
      const exported = async (who: Role) =>
        fetch(`${app.baseUrl}/api/staff/${world.a.programId}/exports/segment-members?segment=${id}`, {
          headers: { cookie: cookies[who] },
        });
      assert.equal((await exported("viewer")).status, 403);
      const csv = await exported("manager");
      assert.equal(csv.status, 200);
      const lines = (await csv.text()).trim().split(/\r?\n/);
      const now = (await preview("manager", narrow)).json as unknown as { count: number; sample: { email: string }[] };
      assert.equal(lines[0], "id,email,firstName,lastName,phone,externalCustomerId,balance,tier,language,createdAt");
      assert.equal(lines.length - 1, now.count);
      assert.equal(csv.headers.get("x-export-rows"), String(now.count));
      assert.deepEqual(
        lines
          .slice(1)
          .map((l) => l.split(",")[1])
          .sort(),
        now.sample.map((m) => m.email).sort(),
      );

      // A campaign naming it (by name) is listed on its page; a viewer sees the members, not the builder.
      const campaign = await staff("manager", "POST", "/campaigns", {
        name: "Win back big balances",
        trigger: { lifecycle: "inactivity", days: 90 },
        conditions: { all: [{ attr: "customer.segment", op: "in", value: ["Big balances"] }] },
        effects: [{ type: "award_points", points: 50 }],
      });
      assert.equal(campaign.status, 201, campaign.text);
      const html = async (who: Role) =>
        (
          await fetch(`${app.baseUrl}/dashboard/${world.a.programId}/segments/${id}`, {
            headers: { cookie: cookies[who] },
            redirect: "manual",
          })
        ).text();
      const viewerPage = await html("viewer");
      assert.match(viewerPage, /Win back big balances/);
      assert.match(viewerPage, new RegExp(now.sample[0]!.email.replace(/[.+]/g, "\\$&")));
      assert.doesNotMatch(viewerPage, /Save the segment|Delete segment|Export CSV/);
      assert.match(await html("manager"), /Save the segment/);

      const version = changed.json?.version as string;
      assert.equal(
        (await staff("manager", "DELETE", `/segments/${id}`, undefined, { "if-match": `"${shown}"` })).status,
        409,
      );
      const deleted = await staff("manager", "DELETE", `/segments/${id}`, undefined, { "if-match": `"${version}"` });
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal((await v1("GET", `/v1/programs/${world.a.programId}/segments/${id}`)).status, 404);
    });

    test("every change left one audit row, before → after, in the transaction of the change", async () => {
      await stack.stopAll();
      const rows = await stack.query<{ action: string; n: number }>(
        `SELECT action, count(*)::int AS n FROM "AuditLog" WHERE "programId" = $1::uuid GROUP BY action ORDER BY action`,
        [world.a.programId],
      );
      assert.deepEqual(Object.fromEntries(rows.map((r) => [r.action, Number(r.n)])), {
        "campaign.activate": 2,
        "campaign.create": 2,
        "campaign.end": 1,
        "campaign.pause": 1,
        "campaign.resume": 1,
        "campaign.update": 1,
        "coupon_pool.update": 2,
        "data.export": 1,
        "earning_flow.activate": 1,
        "earning_flow.deactivate": 1,
        "earning_flow.update": 1,
        "event_type.create": 1,
        "program.update": 2, // the settings, then the allowed origins (the refused PATCH wrote nothing)
        "reward.update": 4,
        "segment.create": 1,
        "segment.delete": 1,
        "segment.update": 1,
        "tier.remove": 1,
        "tier.update": 2,
      });
      // The campaign's moves as the log keeps them, and the dry runs stored nothing.
      const moves = await stack.query<{ action: string; staffEmail: string; before: unknown; after: unknown }>(
        `SELECT action, "staffEmail", before, after FROM "AuditLog"
         WHERE "programId" = $1::uuid AND action LIKE 'campaign.%' AND action NOT IN ('campaign.create', 'campaign.update')
         ORDER BY "createdAt", id`,
        [world.a.programId],
      );
      assert.deepEqual(
        moves.map((m) => [m.action, m.staffEmail, m.before, m.after]),
        [
          [
            "campaign.activate",
            world.emails.manager,
            { status: "draft", version: null },
            { status: "active", version: 1 },
          ],
          ["campaign.pause", world.emails.manager, { status: "active", version: 1 }, { status: "paused", version: 1 }],
          ["campaign.resume", world.emails.owner, { status: "paused", version: 1 }, { status: "active", version: 1 }],
          [
            "campaign.activate",
            world.emails.manager,
            { status: "active", version: 1 },
            { status: "active", version: 2 },
          ],
          ["campaign.end", world.emails.manager, { status: "active", version: 2 }, { status: "ended", version: 2 }],
        ],
      );
      const [logged] = await stack.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "CustomerEvent" WHERE "programId" = $1::uuid`,
        [world.a.programId],
      );
      assert.equal(Number(logged?.n), 0);
      const [remove] = await stack.query<{ before: { name: string }; after: { customersMoved: number } }>(
        `SELECT before, after FROM "AuditLog" WHERE "programId" = $1::uuid AND action = 'tier.remove'`,
        [world.a.programId],
      );
      assert.equal(remove?.before.name, "Silver");
      assert.equal(remove?.after.customersMoved, 3);
      const [settings, origins] = await stack.query<{
        before: { timeZone: string; allowedOrigins?: string[] };
        after: { timeZone: string; allowedOrigins?: string[] };
      }>(
        `SELECT before, after FROM "AuditLog" WHERE "programId" = $1::uuid AND action = 'program.update' ORDER BY "createdAt"`,
        [world.a.programId],
      );
      assert.deepEqual([settings?.before.timeZone, settings?.after.timeZone], ["UTC", "Europe/Madrid"]);
      assert.deepEqual(
        [origins?.before.allowedOrigins, origins?.after.allowedOrigins],
        [[], ["https://shop.example.com", "http://localhost:5173"]],
      );
      const created = await stack.query<{ action: string; staffEmail: string; role: string }>(
        `SELECT a.action, a."staffEmail", m.role FROM "AuditLog" a
           JOIN "StaffMembership" m ON m."programId" = a."programId" WHERE a."programId" = $1::uuid ORDER BY a."createdAt"`,
        [world.createdProgramId],
      );
      assert.deepEqual(
        created.map((r) => [r.action, r.staffEmail, r.role]),
        [
          ["program.create", world.emails.owner, "owner"],
          ["program.update", world.emails.owner, "owner"],
        ],
      );
      // c3000's tier.changed events, in order: its earn, then the threshold falling, rising, and Silver removed.
      const events = await stack.query<{ from: string | null; to: string | null }>(
        `SELECT e.data->>'fromTierId' AS "from", e.data->>'toTierId' AS "to" FROM "Event" e
           JOIN "Customer" c ON c.id::text = e.data->>'customerId'
         WHERE c.email = $1 AND e.type = 'tier.changed' ORDER BY e."createdAt", e.id`,
        [world.customers.c3000],
      );
      const { bronze, silver, gold } = world.a.tiers;
      assert.deepEqual(
        events.map((e) => [e.from, e.to]),
        [
          [bronze, silver],
          [silver, gold],
          [gold, silver],
          [silver, bronze],
        ],
      );
      // Program T: each applied advance stored once (never a dry run), the dashboard's audited with its clock.
      const advances = await stack.query<{ source: string; staffEmail: string | null; from: string; to: string }>(
        `SELECT source, "staffEmail", to_char("fromAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "from",
                to_char("toAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "to"
           FROM "ClockAdvance" WHERE "programId" = $1::uuid ORDER BY "toAt"`,
        [world.t.programId],
      );
      assert.deepEqual(
        advances.map((r) => [r.source, r.staffEmail, r.from, r.to]),
        [
          ["dashboard", world.emails.manager, "2026-01-01", "2027-02-01"],
          ["dashboard", world.emails.manager, "2027-02-01", "2027-03-01"],
          ["api", null, "2027-03-01", "2027-04-01"],
        ],
      );
      const audits = await stack.query<{ action: string; staffEmail: string; before: unknown; after: unknown }>(
        `SELECT action, "staffEmail", before, after FROM "AuditLog" WHERE "programId" = $1::uuid ORDER BY "createdAt"`,
        [world.t.programId],
      );
      assert.deepEqual(
        audits.map((r) => [r.action, r.staffEmail, (r.before as { clockAt: string }).clockAt]),
        [
          ["clock.advance", world.emails.manager, T_START],
          ["clock.advance", world.emails.manager, T_13],
        ],
      );
      assert.deepEqual(
        { ...(audits[0]!.after as Record<string, unknown>), advanceId: undefined },
        {
          clockAt: T_13,
          advanceId: undefined,
          applied: {
            expiredLots: 1,
            expiredPoints: 500,
            tierChanges: 0,
            pendingActivated: 0,
            lifecycleFired: 0,
            webhooks: 1,
          },
          steps: 1,
          timelineTotal: 1,
        },
      );
    });
  });
}
