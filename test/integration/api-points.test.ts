import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { backends, client, createDatabase, startApp, withPrisma, type Database, type RunningApp } from "../helpers/app";
import { programWithTiers, uniqueEmail, type ProgramFixture } from "../helpers/fixtures";
import { createEarningFlow } from "@/lib/domain/earning-flows";

for (const backend of backends) {
  describe(`Points: balance, history, tiers, earning flows [${backend}]`, () => {
    let database: Database;
    let app: RunningApp;
    let a: ProgramFixture;
    let api: ReturnType<typeof client>;
    const p = () => `/v1/programs/${a.programId}`;
    const c = (email: string) => `${p()}/customers/${encodeURIComponent(email)}`;
    const newCustomer = async (label: string) => {
      const email = uniqueEmail(label);
      const res = await api("POST", `${p()}/integrations/api`, { body: [{ email, feature: "user", payload: {} }] });
      assert.equal(res.status, 201);
      return email;
    };
    const move = (email: string, dir: "increase" | "decrease", body: unknown, headers?: Record<string, string>) =>
      api("POST", `${c(email)}/balance/${dir}`, { body, headers });
    const history = async (email: string) => (await api("GET", `${c(email)}/transactions?limit=200`)).body.data;

    before(async () => {
      database = await createDatabase(backend);
      await withPrisma(database, async (prisma) => {
        a = await programWithTiers(prisma);
        await createEarningFlow(prisma, { programId: a.programId, key: "signup", points: 100, once: true });
        await createEarningFlow(prisma, { programId: a.programId, key: "purchase", pointsPerUnit: 2, param: "amount", capPerDay: 1000 });
        await createEarningFlow(prisma, { programId: a.programId, key: "review", points: 40, capTotal: 100 });
      });
      app = await startApp(database);
      api = client(app.baseUrl, a.key);
    });
    after(async () => {
      await app?.stop();
      await database?.drop();
    });

    test("increase writes an earn entry and returns balance and transaction", async () => {
      const email = await newCustomer("inc");
      const res = await move(email, "increase", { points: 250, reason: "welcome", metadata: { order: "A-1", total: 12.5 } });
      assert.equal(res.status, 200);
      assert.equal(res.body.balance, 250);
      const t = res.body.transaction;
      assert.equal(t.type, "earn");
      assert.equal(t.points, 250);
      assert.equal(t.balanceAfter, 250);
      assert.equal(t.source, "api");
      assert.equal(t.actor, `api_key:${a.keyId}`);
      assert.equal(t.reason, "welcome");
      assert.deepEqual(t.metadata, { order: "A-1", total: 12.5 });
      assert.equal(t.expiresAt, null, "no expiry unless the program sets one");
      const customer = (await api("GET", c(email))).body;
      assert.equal(customer.loyaltyData.balance, 250);
      assert.equal(customer.customerTier.currentTierPoints, 250);
    });

    test("decrease spends; 409 insufficient_balance writes nothing", async () => {
      const email = await newCustomer("dec");
      await move(email, "increase", { points: 100 });
      const spend = await move(email, "decrease", { points: 60, reason: "coffee" });
      assert.equal(spend.status, 200);
      assert.equal(spend.body.balance, 40);
      assert.equal(spend.body.transaction.type, "spend");
      assert.equal(spend.body.transaction.points, -60);
      const over = await move(email, "decrease", { points: 41 });
      assert.equal(over.status, 409);
      assert.equal(over.body.code, "insufficient_balance");
      assert.equal((await api("GET", c(email))).body.loyaltyData.balance, 40);
      assert.equal((await history(email)).length, 2);
      const exact = await move(email, "decrease", { points: 40 });
      assert.equal(exact.body.balance, 0);
    });

    test("earning upgrades the tier at once; spending never downgrades it", async () => {
      const email = await newCustomer("tier");
      await move(email, "increase", { points: 999 });
      assert.equal((await api("GET", c(email))).body.customerTier.currentTier.name, "Bronze");
      await move(email, "increase", { points: 1 });
      let customer = (await api("GET", c(email))).body;
      assert.equal(customer.customerTier.currentTier.name, "Silver");
      assert.equal(customer.customerTier.currentTierId, a.tiers.silver);
      assert.equal(customer.loyaltyData.tierStatus, "earned");
      assert.ok(customer.customerTier.tierChangedAt);
      await move(email, "decrease", { points: 1000 });
      customer = (await api("GET", c(email))).body;
      assert.equal(customer.customerTier.currentTier.name, "Silver");
      assert.equal(customer.customerTier.currentTierPoints, 1000);
    });

    test("validation: points must be an integer in 1..1e9; no unknown fields; metadata bounded", async () => {
      const email = await newCustomer("val");
      for (const body of [{ points: 0 }, { points: 1.5 }, { points: 1_000_000_001 }, { points: -5 }, { points: "10" }, {}, { points: 5, extra: true }, { points: 5, metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])) }, { points: 5, metadata: { nested: { no: 1 } } }]) {
        const res = await move(email, "increase", body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.code, "validation_failed");
        assert.ok(res.body.errors.length > 0);
      }
      assert.equal((await history(email)).length, 0);
      const max = await move(email, "increase", { points: 1_000_000_000 });
      assert.equal(max.status, 200);
    });

    test("a balance cannot pass the int4 limit: 409 balance_limit", async () => {
      const email = await newCustomer("max");
      await move(email, "increase", { points: 1_000_000_000 });
      await move(email, "increase", { points: 1_000_000_000 });
      const over = await move(email, "increase", { points: 1_000_000_000 });
      assert.equal(over.status, 409);
      assert.equal(over.body.code, "balance_limit");
    });

    test("404 customer_not_found on every customer route", async () => {
      const ghost = uniqueEmail("ghost");
      assert.equal((await move(ghost, "increase", { points: 1 })).body.code, "customer_not_found");
      assert.equal((await move(ghost, "decrease", { points: 1 })).body.code, "customer_not_found");
      assert.equal((await api("GET", `${c(ghost)}/transactions`)).body.code, "customer_not_found");
      assert.equal((await api("POST", `${c(ghost)}/earning-flows/signup`, { body: {} })).body.code, "customer_not_found");
    });

    test("Idempotency-Key: a retried increase moves points once; a different body is 409", async () => {
      const email = await newCustomer("idem");
      const h = { "Idempotency-Key": `inc-${email}` };
      const first = await move(email, "increase", { points: 30 }, h);
      const retry = await move(email, "increase", { points: 30 }, h);
      assert.equal(retry.status, 200);
      assert.equal(retry.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(retry.body, first.body);
      assert.equal(first.body.transaction.idempotencyKey, h["Idempotency-Key"]);
      assert.equal((await api("GET", c(email))).body.loyaltyData.balance, 30);
      const conflict = await move(email, "increase", { points: 31 }, h);
      assert.equal(conflict.status, 409);
      assert.equal(conflict.body.code, "idempotency_conflict");
      const tooLong = await move(email, "increase", { points: 1 }, { "Idempotency-Key": "x".repeat(256) });
      assert.equal(tooLong.status, 400);
    });

    test("history is newest first with cursor pagination", async () => {
      const email = await newCustomer("hist");
      for (let i = 1; i <= 5; i++) await move(email, "increase", { points: i });
      const page1 = await api("GET", `${c(email)}/transactions?limit=2`);
      assert.equal(page1.status, 200);
      assert.deepEqual(page1.body.data.map((t: { points: number }) => t.points), [5, 4]);
      assert.ok(page1.body.nextCursor);
      const page2 = await api("GET", `${c(email)}/transactions?limit=2&cursor=${page1.body.nextCursor}`);
      assert.deepEqual(page2.body.data.map((t: { points: number }) => t.points), [3, 2]);
      const page3 = await api("GET", `${c(email)}/transactions?limit=2&cursor=${page2.body.nextCursor}`);
      assert.deepEqual(page3.body.data.map((t: { points: number }) => t.points), [1]);
      assert.equal(page3.body.nextCursor, null);
      assert.equal((await api("GET", `${c(email)}/transactions?limit=201`)).status, 400);
      assert.equal((await api("GET", `${c(email)}/transactions?limit=0`)).status, 400);
      const bad = await api("GET", `${c(email)}/transactions?cursor=garbage`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, "validation_failed");
    });

    test("tiers are listed by requiredPoints", async () => {
      const res = await api("GET", `${p()}/tiers`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.map((t: { name: string }) => t.name), ["Bronze", "Silver", "Gold"]);
      assert.deepEqual(Object.keys(res.body.data[0]).sort(), ["content", "createdAt", "factor", "id", "image", "name", "programId", "requiredPoints", "updatedAt"]);
    });

    test("earning flows: fixed, per unit × tier factor rounded down, caps, errors", async () => {
      const email = await newCustomer("flow");
      const run = (key: string, body: unknown = {}) => api("POST", `${c(email)}/earning-flows/${key}`, { body });
      const signup = await run("signup");
      assert.equal(signup.status, 200);
      assert.equal(signup.body.pointsEarned, 100);
      assert.equal(signup.body.transaction.source, "earning_flow");
      assert.equal(signup.body.transaction.type, "earn");
      assert.equal(signup.body.capped, null);
      const again = await run("signup");
      assert.equal(again.status, 200);
      assert.deepEqual([again.body.pointsEarned, again.body.transaction, again.body.capped], [0, null, "once"]);
      assert.equal(again.body.balance, 100);

      await move(email, "increase", { points: 900 }); // 1000 earned: Silver, factor 1.25
      const purchase = await run("purchase", { params: { amount: 10.3 } });
      assert.equal(purchase.body.pointsEarned, Math.floor(10.3 * 2 * 1.25)); // 25
      const capped = await run("purchase", { params: { amount: 1000 } });
      assert.equal(capped.body.pointsEarned, 1000 - 25);
      assert.equal(capped.body.capped, "cap_per_day");
      const none = await run("purchase", { params: { amount: 1 } });
      assert.deepEqual([none.body.pointsEarned, none.body.capped], [0, "cap_per_day"]);

      assert.equal((await run("review")).body.pointsEarned, 50); // 40 × 1.25
      const review2 = await run("review");
      assert.deepEqual([review2.body.pointsEarned, review2.body.capped], [50, null]);
      assert.deepEqual([(await run("review")).body.pointsEarned, (await run("review")).body.capped], [0, "cap_total"]);

      const missing = await run("purchase", { params: {} });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.errors[0].path, "params.amount");
      assert.equal((await run("purchase", { params: { amount: "12" } })).status, 400);
      const unknown = await run("nope");
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, "earning_flow_not_found");
      assert.equal((await run("signup", { params: {}, extra: 1 })).status, 400);
    });
  });
}
