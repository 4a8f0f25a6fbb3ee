import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { backends, client, createDatabase, startApp, withPrisma, type Database, type RunningApp } from "../helpers/app";
import { programWithTiers, uniqueEmail, type ProgramFixture } from "../helpers/fixtures";
import { createReward } from "@/lib/domain/rewards";
import { createCouponPool, importCoupons } from "@/lib/domain/coupons";

for (const backend of backends) {
  describe(`Rewards, coupons, tokens, notifications, deletion [${backend}]`, () => {
    let database: Database;
    let app: RunningApp;
    let a: ProgramFixture;
    let b: ProgramFixture;
    let api: ReturnType<typeof client>;
    const ids: Record<string, string> = {};
    const p = () => `/v1/programs/${a.programId}`;
    const c = (email: string) => `${p()}/customers/${encodeURIComponent(email)}`;
    const newCustomer = async (label: string, points = 0, payload: Record<string, unknown> = {}) => {
      const email = uniqueEmail(label);
      assert.equal((await api("POST", `${p()}/integrations/api`, { body: [{ email, feature: "user", payload }] })).status, 201);
      if (points) assert.equal((await api("POST", `${c(email)}/balance/increase`, { body: { points } })).status, 200);
      return email;
    };

    before(async () => {
      database = await createDatabase(backend);
      await withPrisma(database, async (prisma) => {
        a = await programWithTiers(prisma, "A");
        b = await programWithTiers(prisma, "B");
        ids.mug = (await createReward(prisma, { programId: a.programId, name: "Mug", costPoints: 100, stock: 2, description: "A mug" })).rewardId;
        ids.coffee = (await createReward(prisma, { programId: a.programId, name: "Coffee", costPoints: 30 })).rewardId;
        ids.retired = (await createReward(prisma, { programId: a.programId, name: "Retired", costPoints: 10, active: false })).rewardId;
        ids.otherProgram = (await createReward(prisma, { programId: b.programId, name: "B only", costPoints: 1 })).rewardId;
        ids.pool = (await createCouponPool(prisma, { programId: a.programId, name: "Welcome", validDays: 30 })).couponPoolId;
        await importCoupons(prisma, ids.pool, ["WELCOME-1", "WELCOME-2"]);
        ids.empty = (await createCouponPool(prisma, { programId: a.programId, name: "Empty" })).couponPoolId;
        ids.poolB = (await createCouponPool(prisma, { programId: b.programId, name: "B pool" })).couponPoolId;
        await importCoupons(prisma, ids.poolB, ["B-1"]);
      });
      app = await startApp(database);
      api = client(app.baseUrl, a.key);
    });
    after(async () => {
      await app?.stop();
      await database?.drop();
    });

    test("GET /rewards lists active rewards, cheapest first", async () => {
      const res = await api("GET", `${p()}/rewards`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.map((r: { name: string }) => r.name), ["Coffee", "Mug"]);
      const mug = res.body.data[1];
      assert.deepEqual(Object.keys(mug).sort(), ["active", "costPoints", "createdAt", "description", "id", "image", "name", "programId", "stock", "updatedAt"]);
      assert.equal(mug.stock, 2);
      assert.equal(res.body.data[0].stock, null);
    });

    test("redeeming spends through the ledger, takes stock and issues a code", async () => {
      const email = await newCustomer("redeem", 250);
      const res = await api("POST", `${c(email)}/rewards/${ids.mug}/redeem`, { body: { metadata: { store: "Lyon" } } });
      assert.equal(res.status, 201);
      assert.equal(res.body.balance, 150);
      assert.match(res.body.redemption.code, /^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
      assert.equal(res.body.redemption.points, 100);
      const [entry] = (await api("GET", `${c(email)}/transactions?limit=1`)).body.data;
      assert.equal(entry.type, "redeem");
      assert.equal(entry.points, -100);
      assert.equal(entry.id, res.body.redemption.transactionId);
      const rewards = (await api("GET", `${p()}/rewards`)).body.data;
      assert.equal(rewards.find((r: { id: string }) => r.id === ids.mug).stock, 1);
    });

    test("409 insufficient_balance, reward_out_of_stock, reward_inactive; 404 reward_not_found; nothing changes", async () => {
      const poor = await newCustomer("poor", 20);
      const noMoney = await api("POST", `${c(poor)}/rewards/${ids.coffee}/redeem`, { body: {} });
      assert.equal(noMoney.status, 409);
      assert.equal(noMoney.body.code, "insufficient_balance");
      assert.equal((await api("GET", c(poor))).body.loyaltyData.balance, 20);

      const rich = await newCustomer("rich", 1000);
      assert.equal((await api("POST", `${c(rich)}/rewards/${ids.mug}/redeem`, { body: {} })).status, 201);
      const out = await api("POST", `${c(rich)}/rewards/${ids.mug}/redeem`, { body: {} });
      assert.equal(out.status, 409);
      assert.equal(out.body.code, "reward_out_of_stock");
      assert.equal((await api("GET", c(rich))).body.loyaltyData.balance, 900);

      const inactive = await api("POST", `${c(rich)}/rewards/${ids.retired}/redeem`, { body: {} });
      assert.deepEqual([inactive.status, inactive.body.code], [409, "reward_inactive"]);
      for (const reward of [ids.otherProgram, "00000000-0000-0000-0000-000000000000", "not-a-uuid"]) {
        const res = await api("POST", `${c(rich)}/rewards/${reward}/redeem`, { body: {} });
        assert.deepEqual([res.status, res.body.code], [404, "reward_not_found"], reward);
      }
      assert.equal((await api("POST", `${c(rich)}/rewards/${ids.coffee}/redeem`, { body: { extra: 1 } })).status, 400);
    });

    test("coupons: each code once, 409 coupon_pool_empty, 404 for another program's pool", async () => {
      const one = await newCustomer("c1");
      const two = await newCustomer("c2");
      const first = await api("POST", `${c(one)}/coupons`, { body: { couponPoolId: ids.pool } });
      assert.equal(first.status, 201);
      assert.match(first.body.coupon.code, /^WELCOME-[12]$/);
      assert.equal(first.body.coupon.couponPoolId, ids.pool);
      const days = (Date.parse(first.body.coupon.expiresAt) - Date.parse(first.body.coupon.assignedAt)) / 86400e3;
      assert.equal(days, 30);
      const second = await api("POST", `${c(two)}/coupons`, { body: { couponPoolId: ids.pool } });
      assert.notEqual(second.body.coupon.code, first.body.coupon.code);
      const empty = await api("POST", `${c(two)}/coupons`, { body: { couponPoolId: ids.pool } });
      assert.deepEqual([empty.status, empty.body.code], [409, "coupon_pool_empty"]);
      assert.equal((await api("POST", `${c(two)}/coupons`, { body: { couponPoolId: ids.empty } })).body.code, "coupon_pool_empty");
      const foreign = await api("POST", `${c(two)}/coupons`, { body: { couponPoolId: ids.poolB } });
      assert.deepEqual([foreign.status, foreign.body.code], [404, "coupon_pool_not_found"]);
      assert.equal((await api("POST", `${c(two)}/coupons`, { body: { couponPoolId: "nope" } })).status, 400);
    });

    test("notifications are queued, or suppressed by the customer's preference", async () => {
      const email = await newCustomer("push");
      const queued = await api("POST", `${c(email)}/notifications`, { body: { title: "Hi", body: "You earned points", category: "balance", data: { screen: "wallet" } } });
      assert.equal(queued.status, 202);
      assert.equal(queued.body.notification.status, "queued");
      assert.ok(queued.body.notification.id);
      const suppressed = await api("POST", `${c(email)}/notifications`, { body: { title: "Sale", body: "50% off", category: "marketing" } });
      assert.equal(suppressed.body.notification.status, "suppressed", "marketing is off by default");
      const bad = await api("POST", `${c(email)}/notifications`, { body: { title: "", body: "x", category: "sms" } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), ["category", "title"]);
    });

    test("customer tokens: /me routes with Bearer only, for that customer and program", async () => {
      const email = await newCustomer("me", 200);
      const issued = await api("GET", `${c(email)}/token`);
      assert.equal(issued.status, 200);
      const { token, expiresAt } = issued.body;
      const ttl = Date.parse(expiresAt) - Date.now();
      assert.ok(ttl > 3500e3 && ttl <= 3600e3);
      const bearer = { Authorization: `Bearer ${token}` };

      const me = await api("GET", `${p()}/me`, { key: null, headers: bearer });
      assert.equal(me.status, 200);
      assert.equal(me.body.email, email);
      const history = await api("GET", `${p()}/me/transactions`, { key: null, headers: bearer });
      assert.equal(history.body.data.length, 1);
      const redeemed = await api("POST", `${p()}/me/rewards/${ids.coffee}/redeem`, { key: null, headers: bearer, body: {} });
      assert.equal(redeemed.status, 201);
      assert.equal(redeemed.body.balance, 170);
      assert.equal((await api("GET", `${c(email)}/transactions?limit=1`)).body.data[0].actor, `customer:${me.body.id}`);

      const refused = async (path: string, opts: { key?: string | null; headers?: Record<string, string> }) => {
        const res = await api("GET", path, { key: null, ...opts });
        assert.equal(res.status === 401 || res.status === 404, true, `${path}: ${res.status}`);
        return res;
      };
      assert.equal((await refused(`${p()}/me`, {})).status, 401);
      assert.equal((await refused(`${p()}/me`, { key: a.key })).status, 401, "an api-key is not accepted on /me");
      assert.equal((await refused(`${p()}/me`, { key: a.key, headers: bearer })).status, 401);
      assert.equal((await refused(`/v1/programs/${b.programId}/me`, { headers: bearer })).status, 401, "another program");
      const tampered = token.slice(0, -3) + (token.endsWith("AAA") ? "BBB" : "AAA");
      assert.equal((await refused(`${p()}/me`, { headers: { Authorization: `Bearer ${tampered}` } })).status, 401);
      assert.equal((await refused(c(email), { headers: bearer })).status, 401, "a token is not accepted on integrator routes");
    });

    test("deletion erases the customer from every read; tokens stop working; totals stay", async () => {
      const email = await newCustomer("gone", 300, { firstName: "Erase", lastName: "Me", externalCustomerId: `ext-gone-${Date.now()}` });
      await api("POST", `${c(email)}/balance/decrease`, { body: { points: 50 } });
      const { token } = (await api("GET", `${c(email)}/token`)).body;
      const id = (await api("GET", c(email))).body.id;
      const before = database.sql ? (await database.sql.query(`SELECT sum(points)::int AS total FROM "LedgerEntry" WHERE "programId" = $1`, [a.programId])).rows[0].total : null;

      const del = await api("DELETE", `${p()}/integrations/api`, { body: [{ email: email.toUpperCase(), feature: "user" }, { email: uniqueEmail("unknown"), feature: "user" }] });
      assert.equal(del.status, 204);
      assert.equal(del.text, "");
      assert.equal((await api("GET", c(email))).body.code, "customer_not_found");
      assert.equal((await api("GET", `${c(email)}/transactions`)).status, 404);
      assert.equal((await api("POST", `${c(email)}/balance/increase`, { body: { points: 1 } })).status, 404);
      assert.equal((await api("GET", `${p()}/me`, { key: null, headers: { Authorization: `Bearer ${token}` } })).status, 401);
      assert.equal((await api("DELETE", `${p()}/integrations/api`, { body: [{ email, feature: "user" }] })).status, 204, "idempotent");
      assert.equal((await api("DELETE", `${p()}/integrations/api`, { body: [{ email: "bad", feature: "user" }] })).status, 400);

      if (database.sql) {
        const after = (await database.sql.query(`SELECT sum(points)::int AS total FROM "LedgerEntry" WHERE "programId" = $1`, [a.programId])).rows[0].total;
        assert.equal(after, before, "the ledger stays: program totals unchanged");
        const row = (await database.sql.query(`SELECT c.email, u."firstName", u."lastName", u."externalCustomerId" FROM "Customer" c JOIN "UserData" u ON u."customerId" = c.id WHERE c.id = $1`, [id])).rows[0];
        assert.deepEqual(row, { email: null, firstName: null, lastName: null, externalCustomerId: null });
      }
      // The e-mail is free again: a new customer, not the old one back.
      await api("POST", `${p()}/integrations/api`, { body: [{ email, feature: "user", payload: {} }] });
      const reborn = (await api("GET", c(email))).body;
      assert.notEqual(reborn.id, id);
      assert.equal(reborn.loyaltyData.balance, 0);
    });
  });
}
