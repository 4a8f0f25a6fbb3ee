import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { backends, client, createDatabase, startApp, withPrisma, type Database, type RunningApp } from "../helpers/app";
import { programWithTiers, type ProgramFixture } from "../helpers/fixtures";

for (const backend of backends) {
  describe(`Concurrent Create/Update [${backend}]`, () => {
    let database: Database;
    let app: RunningApp;
    let a: ProgramFixture;
    let api: ReturnType<typeof client>;

    before(async () => {
      database = await createDatabase(backend);
      await withPrisma(database, async (prisma) => {
        a = await programWithTiers(prisma);
      });
      app = await startApp(database);
      api = client(app.baseUrl, a.key);
    });
    after(async () => {
      await app?.stop();
      await database?.drop();
    });

    test("20 parallel creates of one e-mail make one customer", async () => {
      const email = `race.${Date.now()}@example.com`;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api("POST", `/v1/programs/${a.programId}/integrations/api`, {
            body: [{ email: i % 2 ? email.toUpperCase() : email, feature: "user", payload: { firstName: `F${i}` } }],
          }),
        ),
      );
      assert.deepEqual(results.map((r) => r.status), Array(20).fill(201));
      const customer = await api("GET", `/v1/programs/${a.programId}/customers/${encodeURIComponent(email)}`);
      assert.equal(customer.status, 200);
      assert.match(customer.body.userData.firstName, /^F\d+$/);
      if (database.sql) {
        const { rows } = await database.sql.query(`SELECT count(*)::int AS n FROM "Customer" WHERE email = $1`, [email]);
        assert.equal(rows[0].n, 1);
        const parts = await database.sql.query(
          `SELECT (SELECT count(*) FROM "UserData" u JOIN "Customer" c ON c.id = u."customerId" WHERE c.email = $1)::int AS u,
                  (SELECT count(*) FROM "LoyaltyData" l JOIN "Customer" c ON c.id = l."customerId" WHERE c.email = $1)::int AS l,
                  (SELECT count(*) FROM "CustomerTier" t JOIN "Customer" c ON c.id = t."customerId" WHERE c.email = $1)::int AS t`,
          [email],
        );
        assert.deepEqual(parts.rows[0], { u: 1, l: 1, t: 1 });
      }
    });

    test("parallel batches over the same customers neither deadlock nor lose fields", async () => {
      const tag = `p${Date.now()}`;
      const emails = Array.from({ length: 50 }, (_, i) => `${tag}.${i}@example.com`);
      // Batch k writes its own field value; odd batches go in reverse order to provoke lock-order deadlocks.
      const batches = Array.from({ length: 10 }, (_, k) => {
        const items = emails.map((email, i) => ({
          email,
          feature: "user",
          payload: k === 0 ? { externalCustomerId: `${tag}-${i}`, phone: "+1 555 0000" } : { firstName: `B${k}`, lastName: `L${k}` },
        }));
        return k % 2 ? items.reverse() : items;
      });
      const results = await Promise.all(batches.map((body) => api("POST", `/v1/programs/${a.programId}/integrations/api`, { body })));
      assert.deepEqual(
        results.map((r) => r.status),
        Array(10).fill(201),
        results.map((r) => r.text).join("\n"),
      );
      for (const [i, email] of emails.entries()) {
        const c = (await api("GET", `/v1/programs/${a.programId}/customers/${encodeURIComponent(email)}`)).body;
        assert.equal(c.userData.externalCustomerId, `${tag}-${i}`, "the field only batch 0 wrote is kept");
        assert.equal(c.userData.phone, "+1 555 0000");
        const k = Number(c.userData.firstName.slice(1));
        assert.ok(k >= 1 && k <= 9);
        assert.equal(c.userData.lastName, `L${k}`, "first and last name come from the same batch (batches are atomic)");
      }
    });
  });
}
