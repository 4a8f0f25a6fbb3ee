/**
 * Create/Update resources under concurrency, over HTTP against the built app: parallel creates of one e-mail,
 * and parallel batches over overlapping customers in different orders (deadlocks, lost updates, torn batches).
 * On PGlite the server serialises queries, so this mostly checks correctness; PostgreSQL runs them truly at once.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BACKENDS, openStack, type Fixtures, type Stack } from "../support/stack";
import { CUSTOMERS } from "../support/fixtures";
import { assertCustomerShape } from "../support/assertions";
import { prng } from "../support/prng";

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const POOL = 60; // customers the batches draw from
const PRE_EXISTING = 30; // of which these exist before the batches run
const BATCHES = 10;
const PER_BATCH = 50;

/** What batch k writes: 0 → phone (+ names), 1 → externalCustomerId (+ names), 2 → emailVerified only, others → names. */
function payloadOf(k: number, i: number): Record<string, unknown> {
  if (k === 2) return { emailVerified: true };
  const names = { firstName: `F${k}`, lastName: `L${k}` };
  if (k === 0) return { ...names, phone: "+1 555 0100" };
  if (k === 1) return { ...names, externalCustomerId: `ext-${i}` };
  return names;
}

for (const backend of BACKENDS) {
  describe(`Concurrent Create/Update resources [${backend}]`, () => {
    let app: Stack<Fixtures<typeof CUSTOMERS>>;
    before(async () => {
      app = await openStack(backend, CUSTOMERS, { start: true });
    });
    after(() => app?.close());

    const post = (body: unknown) => app.api("POST", `/v1/programs/${app.programId}/integrations/api`, { body });
    const get = (email: string) =>
      app.api("GET", `/v1/programs/${app.programId}/customers/${encodeURIComponent(email)}`);
    const raceEmail = "race.one@example.com";
    const pool = Array.from({ length: POOL }, (_, i) => `pool.${String(i).padStart(2, "0")}@example.com`);
    let expectedCustomers = 0;

    test("20 parallel creates of one e-mail (in different spellings) all answer 201 and make exactly one customer", async () => {
      const spellings = [raceEmail, raceEmail.toUpperCase(), `  ${raceEmail}  `, "Race.One@Example.COM"];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          post([{ email: spellings[i % spellings.length], feature: "user", payload: { firstName: `F${i}` } }]),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        Array(20).fill(201),
        results
          .map((r) => r.text)
          .filter(Boolean)
          .join("\n"),
      );
      const res = await get(raceEmail);
      assert.equal(res.status, 200, res.text);
      assertCustomerShape(res.json);
      assert.match(res.json.userData.firstName, /^F(1?\d)$/, "the name is one a request wrote");
      assert.ok(Number(res.json.userData.firstName.slice(1)) < 20);
      assert.equal(res.json.customerTier.currentTierId, app.tiers.bronze);
      assert.equal(res.json.loyaltyData.balance, 0);
      for (const spelling of spellings) assert.equal((await get(spelling.trim())).json.id, res.json.id);
      expectedCustomers += 1; // counted in the database by the last test
    });

    test(`${BATCHES} parallel batches of ${PER_BATCH} overlapping customers in different orders: all 201, none lost, each batch whole`, async () => {
      const pre = await post(
        pool
          .slice(0, PRE_EXISTING)
          .map((email) => ({ email, feature: "user", payload: { firstName: "Pre", lastName: "Pre" } })),
      );
      assert.equal(pre.status, 201, pre.text);

      const random = prng(20261122);
      const members: Set<number>[] = [];
      const batches = Array.from({ length: BATCHES }, (_, k) => {
        const indexes = shuffled(
          pool.map((_, i) => i),
          random,
        ).slice(0, PER_BATCH); // a different subset in a different order for each batch
        members.push(new Set(indexes));
        return indexes.map((i) => ({
          email: k % 2 ? pool[i]!.toUpperCase() : pool[i]!,
          feature: "user",
          payload: payloadOf(k, i),
        }));
      });
      const started = Date.now();
      const results = await Promise.all(batches.map((body) => post(body)));
      const seconds = (Date.now() - started) / 1000;
      assert.deepEqual(
        results.map((r) => r.status),
        Array(BATCHES).fill(201),
        results
          .map((r) => r.text)
          .filter(Boolean)
          .join("\n"),
      );
      assert.ok(seconds < 60, `the batches took ${seconds} s (a deadlock would wait for a timeout)`);

      for (const [i, email] of pool.entries()) {
        const inBatches = [...members.keys()].filter((k) => members[k]!.has(i));
        const exists = i < PRE_EXISTING || inBatches.length > 0;
        const res = await get(email);
        if (!exists) {
          assert.equal(res.status, 404, `${email} was in no batch`);
          continue;
        }
        expectedCustomers += 1;
        assert.equal(res.status, 200, `${email}: ${res.text}`);
        const u = res.json.userData;

        const nameWriters = inBatches.filter((k) => k !== 2);
        if (nameWriters.length === 0) {
          assert.deepEqual([u.firstName, u.lastName], i < PRE_EXISTING ? ["Pre", "Pre"] : [null, null], email);
        } else {
          const k = Number(/^F(\d+)$/.exec(u.firstName ?? "")?.[1]);
          assert.ok(
            nameWriters.includes(k),
            `${email}: firstName ${u.firstName} was written by one of batches ${nameWriters}`,
          );
          assert.equal(
            u.lastName,
            `L${k}`,
            `${email}: firstName and lastName come from the same batch (batches are atomic)`,
          );
        }
        // Fields only one batch writes are never lost.
        assert.equal(u.phone, inBatches.includes(0) ? "+1 555 0100" : null, `${email}: phone`);
        assert.equal(u.externalCustomerId, inBatches.includes(1) ? `ext-${i}` : null, `${email}: externalCustomerId`);
        assert.equal(u.emailVerified, inBatches.includes(2), `${email}: emailVerified`);
        assert.equal(res.json.email, email);
        assert.equal(res.json.customerTier.currentTierId, app.tiers.bronze);
      }
      // The seeded draw must leave the test meaningful: overlaps, and customers both old and new in the batches.
      const newTouched = pool.filter((_, i) => i >= PRE_EXISTING && members.some((m) => m.has(i))).length;
      assert.ok(newTouched > 0, "some batches create customers");
      assert.ok(
        members.every((m) => [...m].some((i) => i < PRE_EXISTING)),
        "every batch updates existing customers",
      );
    });

    test("the database holds each customer once, lower-cased, with exactly one userData, loyaltyData and customerTier", async () => {
      await app.stopAll(); // PGlite can be opened by one process only
      const rows = await app.query<{ email: string; u: number; l: number; t: number }>(
        `SELECT c.email,
                (SELECT count(*) FROM "UserData" u WHERE u."customerId" = c.id)::int AS u,
                (SELECT count(*) FROM "LoyaltyData" l WHERE l."customerId" = c.id)::int AS l,
                (SELECT count(*) FROM "CustomerTier" t WHERE t."customerId" = c.id)::int AS t
           FROM "Customer" c WHERE c."programId" = $1::uuid ORDER BY c.email`,
        [app.programId],
      );
      assert.equal(rows.length, expectedCustomers, "one row per customer the tests made");
      assert.equal(rows.filter((r) => r.email === raceEmail).length, 1, "the 20 parallel creates made one customer");
      assert.equal(new Set(rows.map((r) => r.email)).size, rows.length);
      for (const r of rows) {
        assert.equal(r.email, r.email.toLowerCase());
        assert.deepEqual({ u: r.u, l: r.l, t: r.t }, { u: 1, l: 1, t: 1 }, r.email);
      }
    });
  });
}
