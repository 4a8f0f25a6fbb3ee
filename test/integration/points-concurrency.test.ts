/**
 * Concurrent points requests against the built app on a PostgreSQL server (API.md §4 "Concurrency"): parallel
 * decreases never overdraw nor lose an update, parallel retries with one Idempotency-Key act once, earning-flow caps
 * hold under parallel runs, and a parallel mix of everything keeps balance = ledger sum = lots sum ≥ 0, checked with
 * SQL on the test database. PostgreSQL only (PGlite serves one connection at a time, so nothing runs in parallel).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  customerPath,
  openStack,
  type ApiOptions,
  type ApiResponse,
  type Fixtures,
  type Stack,
} from "../support/stack";
import { POINTS, TIERS } from "../support/fixtures";
import { assertProblem } from "../support/assertions";
import { prng } from "../support/prng";

const SKIP = process.env.TEST_DATABASE_URL
  ? false
  : "PostgreSQL only: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:55497/postgres) to run the concurrency tests";

describe("Points under concurrency [postgres]", { skip: SKIP }, () => {
  let app: Stack<Fixtures<typeof POINTS>>;
  before(async () => {
    app = await openStack("postgres", POINTS, { start: true });
  });
  after(() => app?.close());

  const P = (email: string) => customerPath(app.programId, email);
  const post = (
    email: string,
    path: string,
    body: unknown,
    options: Omit<ApiOptions, "body"> = {},
  ): Promise<ApiResponse> => app.api("POST", `${P(email)}${path}`, { ...options, body });
  let seq = 0;
  async function newCustomer(label: string, points = 0): Promise<string> {
    const email = `${label}.${++seq}@example.com`;
    const res = await app.api("POST", `/v1/programs/${app.programId}/integrations/api`, {
      body: [{ email, feature: "user", payload: {} }],
    });
    assert.equal(res.status, 201, res.text);
    if (points > 0) assert.equal((await post(email, "/balance/increase", { points })).status, 200);
    return email;
  }

  interface Books {
    balance: number;
    ledger: number;
    entries: number;
    lots: number;
    badLots: number;
    negativeAfter: number;
    currentTierPoints: number;
    earned: number;
    currentTierId: string | null;
  }
  /** The customer's books straight from the database. */
  async function books(email: string): Promise<Books> {
    const rows = await app.query<Books>(
      `SELECT l.balance, ct."currentTierPoints", ct."currentTierId",
              (SELECT coalesce(sum(points), 0)::int FROM "LedgerEntry" e WHERE e."customerId" = c.id) AS ledger,
              (SELECT count(*)::int FROM "LedgerEntry" e WHERE e."customerId" = c.id) AS entries,
              (SELECT coalesce(sum(points), 0)::int FROM "LedgerEntry" e WHERE e."customerId" = c.id AND e.type = 'earn') AS earned,
              (SELECT count(*)::int FROM "LedgerEntry" e WHERE e."customerId" = c.id AND e."balanceAfter" < 0) AS "negativeAfter",
              (SELECT coalesce(sum(remaining), 0)::int FROM "PointLot" p WHERE p."customerId" = c.id) AS lots,
              (SELECT count(*)::int FROM "PointLot" p JOIN "LedgerEntry" e ON e.id = p."ledgerEntryId"
                WHERE p."customerId" = c.id AND (p.remaining < 0 OR p.remaining > e.points)) AS "badLots"
       FROM "Customer" c JOIN "LoyaltyData" l ON l."customerId" = c.id JOIN "CustomerTier" ct ON ct."customerId" = c.id
       WHERE c."programId" = $1::uuid AND c.email = $2`,
      [app.programId, email],
    );
    assert.equal(rows.length, 1, `customer ${email} in the database`);
    return rows[0]!;
  }
  function assertInvariants(b: Books, what: string) {
    assert.ok(b.balance >= 0, `${what}: balance ≥ 0`);
    assert.equal(b.ledger, b.balance, `${what}: balance = sum of ledger points`);
    assert.equal(b.lots, b.balance, `${what}: sum of PointLot.remaining = balance`);
    assert.equal(b.badLots, 0, `${what}: every lot within 0..its entry's points`);
    assert.equal(b.negativeAfter, 0, `${what}: no entry's balanceAfter below zero`);
  }
  const tierIdFor = (points: number) => {
    const ids = [app.tiers.bronze, app.tiers.silver, app.tiers.gold];
    let reached = 0;
    TIERS.forEach(([, required], i) => {
      if (required <= points) reached = i;
    });
    return ids[reached];
  };

  test("50 parallel decreases of 10 on a balance of 200: exactly 20 succeed and 30 get 409 insufficient_balance", async () => {
    const email = await newCustomer("drain", 200);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => post(email, "/balance/decrease", { points: 10 })),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 409);
    assert.equal(ok.length + refused.length, 50, `only 200 and 409: ${results.map((r) => r.status).join(",")}`);
    assert.equal(ok.length, 20);
    assert.equal(refused.length, 30);
    for (const r of refused) assertProblem(r, 409, "insufficient_balance");
    // Every success saw a different balance: no update was lost or applied twice.
    assert.deepEqual(
      ok.map((r) => r.json.balance).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i * 10),
    );
    const b = await books(email);
    assertInvariants(b, "after the drain");
    assert.equal(b.balance, 0);
    assert.equal(b.ledger, 0);
    assert.equal(b.lots, 0);
    assert.equal(b.entries, 21, "one earn and 20 spends");
    const spends = await app.query<{ n: number; afters: number[] }>(
      `SELECT count(*)::int AS n, array_agg("balanceAfter" ORDER BY "balanceAfter") AS afters FROM "LedgerEntry" e
       JOIN "Customer" c ON c.id = e."customerId" WHERE c.email = $1 AND e.type = 'spend'`,
      [email],
    );
    assert.equal(spends[0]!.n, 20);
    assert.deepEqual(
      spends[0]!.afters,
      Array.from({ length: 20 }, (_, i) => i * 10),
    );
    const api = await app.api("GET", P(email));
    assert.equal(api.json.loyaltyData.balance, 0);
  });

  test("100 parallel increases, 10 Idempotency-Keys each sent 10 times: exactly 10 entries, balance 10 × points", async () => {
    const email = await newCustomer("idem-burst");
    const POINTS = 7;
    const keys = Array.from({ length: 10 }, (_, i) => `burst-${seq}-${i}`);
    const requests = keys.flatMap((key) => Array.from({ length: 10 }, () => key));
    const results = await Promise.all(
      requests.map((key) =>
        post(email, "/balance/increase", { points: POINTS }, { headers: { "Idempotency-Key": key } }),
      ),
    );
    assert.deepEqual(
      results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`),
      [],
      "every retry answers 200",
    );
    // Per key: one original, nine replays of the very same response.
    for (const key of keys) {
      const mine = results.filter((_, i) => requests[i] === key);
      const ids = new Set(mine.map((r) => r.json.transaction.id));
      assert.equal(ids.size, 1, `one transaction for ${key}`);
      assert.equal(new Set(mine.map((r) => r.text)).size, 1, `identical bodies for ${key}`);
      assert.equal(
        mine.filter((r) => r.headers.get("idempotent-replayed") === "true").length,
        9,
        `nine replays for ${key}`,
      );
    }
    const b = await books(email);
    assertInvariants(b, "after the burst");
    assert.equal(b.entries, 10);
    assert.equal(b.balance, 10 * POINTS);
    const recorded = await app.query<{ key: string }>(
      `SELECT e."idempotencyKey" AS key FROM "LedgerEntry" e JOIN "Customer" c ON c.id = e."customerId" WHERE c.email = $1 ORDER BY 1`,
      [email],
    );
    assert.deepEqual(
      recorded.map((r) => r.key),
      [...keys].sort(),
    );
  });

  test("caps hold under parallel runs: once-only and per-day flows never over-earn", async () => {
    const email = await newCustomer("cap-burst");
    const [welcome, daily, limited] = await Promise.all(
      ["welcome", "daily", "limited"].map((flow) =>
        Promise.all(Array.from({ length: 20 }, () => post(email, `/earning-flows/${flow}`, {}))),
      ),
    );
    for (const r of [...welcome!, ...daily!, ...limited!]) assert.equal(r.status, 200, r.text);
    const earned = (rs: ApiResponse[]) => rs.reduce((s, r) => s + r.json.pointsEarned, 0);
    assert.equal(earned(welcome!), 50);
    assert.equal(welcome!.filter((r) => r.json.pointsEarned === 50).length, 1);
    assert.ok(
      welcome!
        .filter((r) => r.json.pointsEarned === 0)
        .every((r) => r.json.capped === "once" && r.json.transaction === null),
    );
    assert.equal(earned(daily!), 25, "the per-day cap");
    assert.equal(earned(limited!), 15, "the total cap");
    const b = await books(email);
    assertInvariants(b, "after the cap burst");
    assert.equal(b.balance, 90);
  });

  test("a parallel mix of increases, decreases, retries and flow runs on a few customers keeps every invariant", async () => {
    const random = prng(20261123);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const customers = await Promise.all([0, 1, 2, 3].map((i) => newCustomer(`mix${i}`, 100)));
    type Kind = "increase" | "decrease" | "flow";
    const ops: { email: string; kind: Kind; path: string; body: unknown; key?: string }[] = [];
    for (let i = 0; i < 240; i++) {
      const email = pick(customers);
      const r = random();
      if (r < 0.3)
        ops.push({
          email,
          kind: "increase",
          path: "/balance/increase",
          body: { points: 1 + Math.floor(random() * 400) },
        });
      else if (r < 0.65)
        ops.push({
          email,
          kind: "decrease",
          path: "/balance/decrease",
          body: { points: 1 + Math.floor(random() * 150) },
        });
      else {
        const flow = pick(["visit", "purchase", "daily", "limited", "welcome"] as const);
        ops.push({
          email,
          kind: "flow",
          path: `/earning-flows/${flow}`,
          body: flow === "purchase" ? { params: { amount: Math.floor(random() * 50_000) / 100 } } : {},
        });
      }
      // Some requests are retried with the same Idempotency-Key, concurrently with the original.
      if (random() < 0.15) {
        const op = ops.at(-1)!;
        op.key = `mix-${i}`;
        ops.push({ ...op });
      }
    }
    const results = await Promise.all(
      ops.map((op) => post(op.email, op.path, op.body, op.key ? { headers: { "Idempotency-Key": op.key } } : {})),
    );

    const expected = new Map(customers.map((e) => [e, 100]));
    const counted = new Set<string>();
    results.forEach((res, i) => {
      const op = ops[i]!;
      if (res.status === 409) {
        assert.equal(op.kind, "decrease", `only decreases may be refused: ${res.text}`);
        assertProblem(res, 409, "insufficient_balance");
        return;
      }
      assert.equal(res.status, 200, `${op.kind} ${op.path}: ${res.status} ${res.text}`);
      if (op.key) {
        if (counted.has(op.key)) return; // the twin of a request already counted: a replay
        counted.add(op.key);
      }
      const delta =
        op.kind === "flow"
          ? res.json.pointsEarned
          : op.kind === "increase"
            ? (op.body as { points: number }).points
            : -(op.body as { points: number }).points;
      expected.set(op.email, expected.get(op.email)! + delta);
    });
    // Twins answered identically (one acted, the other replayed). A refusal is not stored (a rejected request
    // changes nothing, its key included), so a decrease refused for want of points may act when its twin arrives
    // after a concurrent increase: then exactly one twin is that refusal.
    for (const key of counted) {
      const twins = results.filter((_, i) => ops[i]!.key === key);
      assert.equal(twins.length, 2);
      if (twins[0]!.status !== twins[1]!.status) {
        const refused = twins.find((t) => t.status === 409)!;
        assertProblem(refused, 409, "insufficient_balance");
        continue;
      }
      assert.equal(twins[0]!.status, twins[1]!.status, `twins of ${key}`);
      if (twins[0]!.status === 200) assert.equal(twins[0]!.text, twins[1]!.text, `twins of ${key} answer the same`);
    }
    for (const email of customers) {
      const b = await books(email);
      assertInvariants(b, email);
      assert.equal(b.balance, expected.get(email), `${email}: the balance is what the answers add up to`);
      // No earn was lost to the tier state either (all in one period): currentTierPoints = earned points.
      assert.equal(b.currentTierPoints, b.earned, `${email}: currentTierPoints = sum of earn entries`);
      assert.equal(b.currentTierId, tierIdFor(b.earned), `${email}: the tier those points reach`);
      const flows = await app.query<{ key: string; points: number; n: number }>(
        `SELECT f.key, coalesce(sum(e.points), 0)::int AS points, count(*)::int AS n FROM "LedgerEntry" e
         JOIN "EarningFlow" f ON f.id = e."earningFlowId" JOIN "Customer" c ON c.id = e."customerId"
         WHERE c.email = $1 GROUP BY f.key`,
        [email],
      );
      for (const f of flows) {
        if (f.key === "daily") assert.ok(f.points <= 25, `${email}: daily cap (${f.points})`);
        if (f.key === "limited") assert.ok(f.points <= 15, `${email}: total cap (${f.points})`);
        if (f.key === "welcome") assert.equal(f.n, 1, `${email}: welcome once`);
      }
    }
  });
});
