import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { client, createDatabase, startApp, withPrisma, type Database, type RunningApp } from "../helpers/app";
import { programWithTiers, uniqueEmail, type ProgramFixture } from "../helpers/fixtures";
import { createEarningFlow } from "@/lib/domain/earning-flows";

// Real parallelism needs a server with a connection pool: PGlite runs one query at a time, so these run on
// PostgreSQL only (CI always provides it through TEST_DATABASE_URL).
const run = process.env.TEST_DATABASE_URL ? describe : describe.skip;

run("Points under concurrency [postgres]", () => {
  let database: Database;
  let app: RunningApp;
  let a: ProgramFixture;
  let api: ReturnType<typeof client>;
  const c = (email: string) => `/v1/programs/${a.programId}/customers/${encodeURIComponent(email)}`;
  const newCustomer = async () => {
    const email = uniqueEmail("conc");
    assert.equal((await api("POST", `/v1/programs/${a.programId}/integrations/api`, { body: [{ email, feature: "user", payload: {} }] })).status, 201);
    return email;
  };

  /** balance = ledger sum = lots remaining ≥ 0, straight from the database. */
  async function invariants(email: string) {
    const { rows } = await database.sql!.query(
      `SELECT l.balance,
              (SELECT coalesce(sum(points), 0)::int FROM "LedgerEntry" e WHERE e."customerId" = c.id) AS ledger,
              (SELECT coalesce(sum(remaining), 0)::int FROM "PointLot" p WHERE p."customerId" = c.id) AS lots,
              (SELECT count(*)::int FROM "LedgerEntry" e WHERE e."customerId" = c.id) AS entries
       FROM "Customer" c JOIN "LoyaltyData" l ON l."customerId" = c.id WHERE c.email = $1`,
      [email],
    );
    const r = rows[0];
    assert.equal(r.balance, r.ledger, "balance = sum of ledger");
    assert.equal(r.balance, r.lots, "balance = sum of lots");
    assert.ok(r.balance >= 0);
    return r as { balance: number; entries: number };
  }

  before(async () => {
    database = await createDatabase("postgres");
    await withPrisma(database, async (prisma) => {
      a = await programWithTiers(prisma);
      await createEarningFlow(prisma, { programId: a.programId, key: "visit", points: 7, capPerDay: 70 });
    });
    app = await startApp(database);
    api = client(app.baseUrl, a.key);
  });
  after(async () => {
    await app?.stop();
    await database?.drop();
  });

  test("50 parallel decreases of 10 on 200: exactly 20 succeed, 30 × 409, balance 0", async () => {
    const email = await newCustomer();
    // The balance is built from several lots so spends cross lot boundaries.
    for (const points of [50, 70, 80]) await api("POST", `${c(email)}/balance/increase`, { body: { points } });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => api("POST", `${c(email)}/balance/decrease`, { body: { points: 10 } })),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 409);
    assert.equal(ok.length, 20);
    assert.equal(refused.length, 30);
    assert.ok(refused.every((r) => r.body.code === "insufficient_balance"));
    assert.deepEqual(ok.map((r) => r.body.balance).sort((x, y) => x - y), Array.from({ length: 20 }, (_, i) => i * 10));
    const inv = await invariants(email);
    assert.equal(inv.balance, 0);
    assert.equal(inv.entries, 23);
  });

  test("100 parallel increases with 10 keys repeated 10 times: exactly 10 entries", async () => {
    const email = await newCustomer();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        api("POST", `${c(email)}/balance/increase`, { body: { points: 5 }, headers: { "Idempotency-Key": `${email}-${i % 10}` } }),
      ),
    );
    assert.ok(results.every((r) => r.status === 200), results.filter((r) => r.status !== 200).map((r) => r.text).join("\n"));
    const byKey = new Map<string, string>();
    for (const [i, r] of results.entries()) {
      const key = `${email}-${i % 10}`;
      const id = r.body.transaction.id;
      assert.equal(byKey.get(key) ?? id, id, "every retry of a key answers with the same entry");
      byKey.set(key, id);
    }
    const inv = await invariants(email);
    assert.equal(inv.entries, 10);
    assert.equal(inv.balance, 50);
  });

  test("mixed parallel increases, decreases and earning flows keep every invariant", async () => {
    const emails = [await newCustomer(), await newCustomer(), await newCustomer()];
    const calls = Array.from({ length: 150 }, (_, i) => {
      const email = emails[i % 3]!;
      switch (i % 5) {
        case 0:
        case 1:
          return api("POST", `${c(email)}/balance/increase`, { body: { points: 10 + (i % 7) } });
        case 2:
        case 3:
          return api("POST", `${c(email)}/balance/decrease`, { body: { points: 15 } });
        default:
          return api("POST", `${c(email)}/earning-flows/visit`, { body: {} });
      }
    });
    const results = await Promise.all(calls);
    assert.ok(results.every((r) => r.status === 200 || (r.status === 409 && r.body.code === "insufficient_balance")));
    for (const email of emails) {
      await invariants(email);
      const { rows } = await database.sql!.query(
        `SELECT coalesce(sum(e.points), 0)::int AS earned FROM "LedgerEntry" e JOIN "Customer" c ON c.id = e."customerId"
         WHERE c.email = $1 AND e."earningFlowId" IS NOT NULL`,
        [email],
      );
      assert.ok(rows[0].earned <= 70, `the daily cap holds under concurrency (${rows[0].earned})`);
    }
  });
});
