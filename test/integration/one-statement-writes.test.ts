/**
 * The hot writes act in one statement outside an interactive transaction, with their Idempotency-Key record in that
 * statement (lib/db/keyed-statement.ts `keyedStatement`). Under concurrency on a PostgreSQL server: N parallel identical
 * keyed requests act once and all answer alike (one of them as the original, the others marked replayed); the same
 * key sent with two different bodies at once acts once and the other body gets 409 `idempotency_conflict`; the same
 * holds for a coupon assignment, an earning-flow run and a reward redemption (whose unit of stock is taken only when
 * the balance pays for it); and every answer leaves balance = ledger sum = lots sum. And an earn reads no point lot
 * whatever plan the database picks (a generic plan once scanned the whole program's lots on every increase).
 * PostgreSQL only (PGlite serves one connection at a time, so nothing runs in parallel).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { customerPath, openStack, type ApiResponse, type Fixtures, type Stack } from "../support/stack";
import { POINTS } from "../support/fixtures";
import { assertProblem } from "../support/assertions";
import pg from "pg";
import { changeArgs, changeSql } from "@/lib/api/one-statement";
import { isLostRace } from "@/lib/db/statement";

const SKIP = process.env.TEST_DATABASE_URL
  ? false
  : "PostgreSQL only: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:55497/postgres) to run it";

const N = 16;
const REPLAYED = "idempotent-replayed";

describe("One-statement writes under concurrency [postgres]", { skip: SKIP }, () => {
  let app: Stack<Fixtures<typeof POINTS>>;
  let seq = 0;
  before(async () => {
    app = await openStack("postgres", POINTS, { start: true });
  });
  after(() => app?.close());

  const P = (email: string) => customerPath(app.programId, email);
  async function newCustomer(label: string): Promise<string> {
    const email = `${label}.${++seq}@example.com`;
    const res = await app.api("POST", `/v1/programs/${app.programId}/integrations/api`, {
      body: [{ email, feature: "user", payload: {} }],
    });
    assert.equal(res.status, 201, res.text);
    return email;
  }
  const keyed = (email: string, path: string, body: unknown, key: string) =>
    app.api("POST", `${P(email)}${path}`, { body, headers: { "Idempotency-Key": key } });

  /** The customer's books: balance, ledger sum, lots sum, entries (with this key when given). */
  async function books(email: string, key?: string) {
    const [row] = await app.query<{ balance: number; ledger: number; lots: number; entries: number }>(
      `SELECT l.balance,
              (SELECT coalesce(sum(points), 0)::int FROM "LedgerEntry" e WHERE e."customerId" = c.id) AS ledger,
              (SELECT coalesce(sum(remaining), 0)::int FROM "PointLot" p WHERE p."customerId" = c.id) AS lots,
              (SELECT count(*)::int FROM "LedgerEntry" e WHERE e."customerId" = c.id
                 AND ($3::text IS NULL OR e."idempotencyKey" = $3::text)) AS entries
       FROM "Customer" c JOIN "LoyaltyData" l ON l."customerId" = c.id WHERE c."programId" = $1::uuid AND c.email = $2`,
      [app.programId, email, key ?? null],
    );
    assert.ok(row, email);
    assert.equal(row.balance, row.ledger, "balance = ledger sum");
    assert.equal(row.balance, row.lots, "balance = lots sum");
    return row;
  }

  /** All answered 200/201 with the same body; exactly one not marked replayed. */
  function assertOneActed(results: ApiResponse[], status: number) {
    for (const r of results) assert.equal(r.status, status, r.text);
    assert.equal(new Set(results.map((r) => r.text)).size, 1, "every answer is the same");
    const originals = results.filter((r) => r.headers.get(REPLAYED) !== "true");
    assert.equal(originals.length, 1, "one answer is the original, the others replays");
  }

  test(`${N} parallel identical increases with one Idempotency-Key: one entry, ${N} equal answers`, async () => {
    const email = await newCustomer("same-key");
    const results = await Promise.all(
      Array.from({ length: N }, () => keyed(email, "/balance/increase", { points: 70 }, "k-same")),
    );
    assertOneActed(results, 200);
    assert.equal(results[0]!.json.balance, 70);
    const b = await books(email, "k-same");
    assert.deepEqual([b.balance, b.entries], [70, 1]);
    // A later retry replays the stored answer byte for byte.
    const again = await keyed(email, "/balance/increase", { points: 70 }, "k-same");
    assert.equal(again.text, results[0]!.text);
    assert.equal(again.headers.get(REPLAYED), "true");
  });

  test("one key sent with two different bodies at once: one acts, the other body gets 409 idempotency_conflict", async () => {
    const email = await newCustomer("mixed-key");
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        keyed(email, "/balance/increase", { points: i % 2 === 0 ? 5 : 7 }, "k-mixed"),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    assert.ok(ok.length >= 1, "one body won");
    const won = ok[0]!.json.balance as number;
    assert.ok(won === 5 || won === 7, String(won));
    results.forEach((r, i) => {
      const mine = i % 2 === 0 ? 5 : 7;
      if (mine === won) assert.equal(r.status, 200, r.text);
      else assertProblem(r, 409, "idempotency_conflict");
    });
    assertOneActed(ok, 200);
    const b = await books(email, "k-mixed");
    assert.deepEqual([b.balance, b.entries], [won, 1]);
  });

  test("parallel decreases with one key on a small balance: one spend, the lots follow", async () => {
    const email = await newCustomer("spend-key");
    assert.equal((await keyed(email, "/balance/increase", { points: 30 }, "k-fill")).status, 200);
    const results = await Promise.all(
      Array.from({ length: N }, () => keyed(email, "/balance/decrease", { points: 20 }, "k-spend")),
    );
    assertOneActed(results, 200);
    const b = await books(email, "k-spend");
    assert.deepEqual([b.balance, b.entries], [10, 1]);
    // Without a key, parallel spends of the rest: exactly one succeeds, the others are refused and change nothing.
    const spends = await Promise.all(
      Array.from({ length: 6 }, () => app.api("POST", `${P(email)}/balance/decrease`, { body: { points: 10 } })),
    );
    assert.equal(spends.filter((r) => r.status === 200).length, 1);
    for (const r of spends.filter((r) => r.status !== 200)) assertProblem(r, 409, "insufficient_balance");
    assert.equal((await books(email)).balance, 0);
  });

  test("an earn reads none of the program's point lots, even under a generic plan made while the table was small", async () => {
    // Lots of other customers in the program: an earn consumes no lot, so it must not read any.
    const others = await Promise.all(Array.from({ length: 8 }, () => newCustomer("lot-owner")));
    for (let round = 0; round < 5; round++)
      await Promise.all(others.map((e) => app.api("POST", `${P(e)}/balance/increase`, { body: { points: 3 } })));
    const email = await newCustomer("earner");
    // The statement as the hot path runs it, on a session that always plans generically and reports what it read.
    const client = new pg.Client({ connectionString: app.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query("LOAD 'auto_explain'");
      // Whatever plan the database picks must read no lot: no index may narrow the scan down for it.
      await client.query(`SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
        SET plan_cache_mode = force_generic_plan; SET auto_explain.log_min_duration = 0;
        SET auto_explain.log_analyze = on; SET auto_explain.log_format = json; SET auto_explain.log_level = notice;
        SET client_min_messages = notice`);
      const plans: string[] = [];
      client.on("notice", (n) => plans.push(n.message ?? ""));
      const change = { programId: app.programId, customerId: null, email, points: 5, type: "earn" as const };
      const rows = await client.query({
        name: "earn",
        text: changeSql(change),
        values: changeArgs({ ...change, source: "api", actor: "test", idempotencyKey: null }, null),
      });
      assert.equal(rows.rows[0]?.status, 200, "the earn went through");
      const plan = plans.map((m) => m.slice(m.indexOf("{"))).find((m) => m.includes('"Plan"'));
      assert.ok(plan, "auto_explain reported the plan");
      const lotRowsRead = (node: Record<string, unknown>): number =>
        (node["Relation Name"] === "PointLot" && String(node["Node Type"]).includes("Scan")
          ? (Number(node["Actual Rows"] ?? 0) + Number(node["Rows Removed by Filter"] ?? 0)) *
            Number(node["Actual Loops"] ?? 0)
          : 0) +
        ((node.Plans as Record<string, unknown>[] | undefined) ?? []).reduce((n, child) => n + lotRowsRead(child), 0);
      const read = lotRowsRead((JSON.parse(plan) as { Plan: Record<string, unknown> }).Plan);
      const [counted] = await app.query<{ lots: number }>(
        `SELECT count(*)::int AS lots FROM "PointLot" WHERE "programId" = $1::uuid`,
        [app.programId],
      );
      const lots = counted?.lots ?? 0;
      assert.ok(lots >= 40, `the program has lots (${lots})`);
      assert.equal(read, 0, "lot rows read by the earn");
    } finally {
      await client.end();
    }
    assert.equal((await books(email)).balance, 5);
  });

  test("a change run by the statement of another shape changes nothing: the statement's own invariant stops it", async () => {
    // Each statement leaves out what its shape cannot need (ledger.ts `shapeOf`); handed a change it was not built
    // for, it must fail as a whole (the hot path then takes the locked path), never write a half-done change.
    const email = await newCustomer("misshaped");
    assert.equal((await app.api("POST", `${P(email)}/balance/increase`, { body: { points: 20 } })).status, 200);
    const before = await books(email);
    const cases = [
      {
        what: "a spend by the earn's statement",
        built: { type: "earn", points: 5 },
        run: { type: "spend", points: -3 },
      },
      {
        what: "an earn by the spend's statement",
        built: { type: "spend", points: -1 },
        run: { type: "earn", points: 5 },
      },
      {
        what: "an earn that counts for tiers by the statement without the tier rule",
        built: { type: "adjust", points: 1 },
        run: { type: "earn", points: 5 },
      },
    ] as const;
    const client = new pg.Client({ connectionString: app.env.DATABASE_URL });
    await client.connect();
    try {
      for (const c of cases) {
        const change = { programId: app.programId, customerId: null, email, ...c.run };
        const failed = await client
          .query({
            text: changeSql(c.built),
            values: changeArgs({ ...change, source: "api", actor: "test", idempotencyKey: null }, null),
          })
          .then(
            () => null,
            (err: unknown) => err,
          );
        assert.ok(isLostRace(failed), `${c.what}: refused as a lost race (${String(failed)})`);
        assert.deepEqual(await books(email), before, `${c.what}: nothing written`);
      }
    } finally {
      await client.end();
    }
  });

  test("coupon assignment and an earning-flow run with one key each, in parallel: each acts once", async () => {
    const email = await newCustomer("coupon-flow-key");
    const pools = await app.query<{ id: string }>(
      `SELECT p.id FROM "CouponPool" p WHERE p."programId" = $1::uuid AND EXISTS
         (SELECT 1 FROM "Coupon" k WHERE k."poolId" = p.id AND k."customerId" IS NULL) LIMIT 1`,
      [app.programId],
    );
    if (pools[0]) {
      const coupons = await Promise.all(
        Array.from({ length: N }, () => keyed(email, "/coupons", { couponPoolId: pools[0]!.id }, "k-coupon")),
      );
      assertOneActed(coupons, 201);
      const [held] = await app.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "Coupon" k JOIN "Customer" c ON c.id = k."customerId" WHERE c.email = $1`,
        [email],
      );
      assert.equal(held!.n, 1, "one code assigned");
    }
    const runs = await Promise.all(Array.from({ length: N }, () => keyed(email, "/earning-flows/visit", {}, "k-flow")));
    assertOneActed(runs, 200);
    assert.equal(runs[0]!.json.pointsEarned, runs[0]!.json.transaction.points);
    const b = await books(email, "k-flow");
    assert.equal(b.entries, 1);
    // A once-only flow run in parallel without keys still earns once.
    const welcome = await Promise.all(
      Array.from({ length: 8 }, () => app.api("POST", `${P(email)}/earning-flows/welcome`, { body: {} })),
    );
    for (const r of welcome) assert.equal(r.status, 200, r.text);
    assert.equal(welcome.filter((r) => r.json.pointsEarned > 0).length, 1, "one run earned");
    for (const r of welcome.filter((r) => r.json.pointsEarned === 0)) assert.equal(r.json.capped, "once");
    await books(email);
  });

  async function newReward(name: string, costPoints: number, stock: number | null, limit: number | null = null) {
    const [row] = await app.query<{ id: string }>(
      `INSERT INTO "Reward" ("programId", name, "costPoints", stock, "perCustomerLimit")
       VALUES ($1::uuid, $2, $3, $4, $5) RETURNING id`,
      [app.programId, name, costPoints, stock, limit],
    );
    return row!.id;
  }
  async function stockOf(rewardId: string) {
    const [row] = await app.query<{ stock: number | null; redemptions: number; events: number }>(
      `SELECT r.stock, (SELECT count(*)::int FROM "Redemption" x WHERE x."rewardId" = r.id) AS redemptions,
              (SELECT count(*)::int FROM "Event" v WHERE v.type = 'reward.redeemed' AND v.data->>'rewardId' = r.id::text) AS events
       FROM "Reward" r WHERE r.id = $1::uuid`,
      [rewardId],
    );
    return row!;
  }

  test(`${N} parallel identical redemptions with one key: one unit, one spend, one redemption, ${N} equal answers`, async () => {
    const email = await newCustomer("redeem-key");
    assert.equal((await keyed(email, "/balance/increase", { points: 100 }, "k-fill-100")).status, 200);
    const reward = await newReward("Keyed", 30, 5);
    const body = { metadata: { till: 7 } };
    const results = await Promise.all(
      Array.from({ length: N }, () => keyed(email, `/rewards/${reward}/redeem`, body, "k-redeem")),
    );
    assertOneActed(results, 201);
    const answer = results[0]!.json;
    assert.deepEqual([answer.balance, answer.redemption.points, answer.redemption.rewardId], [70, 30, reward]);
    assert.deepEqual(answer.redemption.metadata, { till: 7 });
    const b = await books(email, "k-redeem");
    assert.deepEqual([b.balance, b.entries], [70, 1]);
    assert.deepEqual(await stockOf(reward), { stock: 4, redemptions: 1, events: 1 });
    const again = await keyed(email, `/rewards/${reward}/redeem`, body, "k-redeem");
    assert.equal(again.text, results[0]!.text);
    assert.equal(again.headers.get(REPLAYED), "true");
    assertProblem(await keyed(email, `/rewards/${reward}/redeem`, {}, "k-redeem"), 409, "idempotency_conflict");
  });

  test("a redemption refused for its balance takes no stock, also when parallel redemptions race for the balance", async () => {
    const email = await newCustomer("redeem-poor");
    assert.equal((await keyed(email, "/balance/increase", { points: 20 }, "k-fill-20")).status, 200);
    const reward = await newReward("Dear", 50, 3);
    assertProblem(await app.api("POST", `${P(email)}/rewards/${reward}/redeem`), 409, "insufficient_balance");
    assert.deepEqual(await stockOf(reward), { stock: 3, redemptions: 0, events: 0 });
    // 60 points pay for one of six parallel redemptions: one unit goes, the others are refused and take none.
    assert.equal((await keyed(email, "/balance/increase", { points: 40 }, "k-more")).status, 200);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => app.api("POST", `${P(email)}/rewards/${reward}/redeem`, { body: {} })),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 1, results.map((r) => r.text).join("\n"));
    for (const r of results.filter((r) => r.status !== 201)) assertProblem(r, 409, "insufficient_balance");
    assert.deepEqual(await stockOf(reward), { stock: 2, redemptions: 1, events: 1 });
    assert.equal((await books(email)).balance, 10);
  });

  test("parallel redemptions of a once-per-customer reward by one customer: one, the rest reward_limit_reached", async () => {
    const email = await newCustomer("redeem-once");
    assert.equal((await keyed(email, "/balance/increase", { points: 100 }, "k-fill-once")).status, 200);
    const reward = await newReward("Once", 10, 5, 1);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => app.api("POST", `${P(email)}/rewards/${reward}/redeem`, { body: {} })),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 1, results.map((r) => r.text).join("\n"));
    for (const r of results.filter((r) => r.status !== 201)) assertProblem(r, 409, "reward_limit_reached");
    assert.deepEqual(await stockOf(reward), { stock: 4, redemptions: 1, events: 1 });
    assert.equal((await books(email)).balance, 90);
  });
});
