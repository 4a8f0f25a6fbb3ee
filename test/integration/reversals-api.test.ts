/**
 * Reversals and order refunds over HTTP against the built app (issue 11 items 1 and 2), on PGlite and (with
 * TEST_DATABASE_URL) on PostgreSQL:
 *   POST /customers/{email}/transactions/{transactionId}/reverse   POST /orders/{orderId}/refund
 *   and `orderId` on increase and earning-flow runs.
 * Happy paths, each refusal code, Idempotency-Key replays, another program's key; then, on PostgreSQL only, the
 * concurrency cases: parallel refunds of one order, a refund racing spends, parallel partial reversals of one entry.
 *
 * Fixtures: TWO_PROGRAMS (program A with tiers Bronze 0, Silver 1000, Gold 5000; program B with its own key); the
 * earning flow is made through the CLI before the app starts.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BACKENDS, customerPath, openStack, type ApiOptions, type Fixtures, type Stack } from "../support/stack";
import { TWO_PROGRAMS } from "../support/fixtures";
import { assertProblem } from "../support/assertions";

for (const backend of BACKENDS) {
  describe(`Reversals and refunds [${backend}]`, () => {
    let app: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    before(async () => {
      app = await openStack(backend, TWO_PROGRAMS);
      await app.loyalty("earning-flow", "create", "--program", app.programId, "--key", "buy", "--points", "30");
      await app.start();
    });
    after(() => app?.close());

    const A = () => `/v1/programs/${app.programId}`;
    const P = (email: string) => customerPath(app.programId, email);
    const post = (path: string, body: unknown, options: Omit<ApiOptions, "body"> = {}) =>
      app.api("POST", path, { ...options, body });
    const reverse = (email: string, id: string, body: unknown, options: Omit<ApiOptions, "body"> = {}) =>
      post(`${P(email)}/transactions/${id}/reverse`, body, options);
    const refund = (orderId: string, body: unknown, options: Omit<ApiOptions, "body"> = {}) =>
      post(`${A()}/orders/${encodeURIComponent(orderId)}/refund`, body, options);

    let seq = 0;
    async function newCustomer(label: string): Promise<string> {
      const email = `${label}.${++seq}@example.com`;
      const res = await post(`${A()}/integrations/api`, [{ email, feature: "user", payload: {} }]);
      assert.equal(res.status, 201, res.text);
      return email;
    }
    async function earn(email: string, points: number, orderId?: string) {
      const res = await post(`${P(email)}/balance/increase`, { points, ...(orderId ? { orderId } : {}) });
      assert.equal(res.status, 200, res.text);
      return res.json.transaction as { id: string; orderId: string | null; reversesId: string | null };
    }
    async function spend(email: string, points: number) {
      const res = await post(`${P(email)}/balance/decrease`, { points });
      assert.equal(res.status, 200, res.text);
      return res.json.transaction as { id: string };
    }
    /** Balance, ledger sum, lots sum and tier points of a customer, through SQL (PostgreSQL) or the API. */
    async function books(email: string) {
      const c = (await app.api("GET", P(email))).json;
      return { balance: c.loyaltyData.balance as number, tierPoints: c.customerTier.currentTierPoints as number };
    }
    let orders = 0;
    const newOrder = () => `ORD-${backend}-${++orders}`;

    test("reversing an earn in part, then the rest: reversal entries linked to it, tier points lowered, the cap holds", async () => {
      const email = await newCustomer("rev");
      const order = newOrder();
      const earned = await earn(email, 1200, order);
      assert.equal(earned.orderId, order);
      assert.equal(earned.reversesId, null);
      assert.deepEqual(await books(email), { balance: 1200, tierPoints: 1200 });

      const part = await reverse(email, earned.id, { points: 300, reason: "Item returned" });
      assert.equal(part.status, 200, part.text);
      assert.equal(part.json.balance, 900);
      assert.equal(part.json.unrecovered, 0);
      const t = part.json.transaction;
      assert.deepEqual(
        [t.type, t.points, t.balanceAfter, t.reason, t.reversesId, t.orderId, t.source],
        ["reversal", -300, 900, "Item returned", earned.id, order, "api"],
      );
      assert.deepEqual(t.metadata, { requested: 300, unrecovered: 0 });
      assert.deepEqual(await books(email), { balance: 900, tierPoints: 900 });

      assertProblem(await reverse(email, earned.id, { points: 901, reason: "x" }), 409, "reversal_exceeds_original");
      const rest = await reverse(email, earned.id, { reason: "Order cancelled" });
      assert.equal(rest.status, 200, rest.text);
      assert.equal(rest.json.transaction.points, -900);
      assert.deepEqual(await books(email), { balance: 0, tierPoints: 0 });
      assertProblem(await reverse(email, earned.id, { reason: "again" }), 409, "reversal_exceeds_original");

      const history = (await app.api("GET", `${P(email)}/transactions`)).json.data;
      assert.deepEqual(
        history.map((e: { type: string; points: number }) => [e.type, e.points]),
        [
          ["reversal", -900],
          ["reversal", -300],
          ["earn", 1200],
        ],
      );
    });

    test("points already spent: what the balance allows is taken, the rest is unrecovered, still counted", async () => {
      const email = await newCustomer("spent");
      const earned = await earn(email, 500);
      await spend(email, 420);
      const res = await reverse(email, earned.id, { points: 200, reason: "Fraud" });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.json.balance, res.json.unrecovered, res.json.transaction.points], [0, 120, -80]);
      assert.deepEqual(await books(email), { balance: 0, tierPoints: 300 });
      // Nothing left to take: a 0-point reversal still records the request.
      const zero = await reverse(email, earned.id, { points: 100, reason: "Fraud" });
      assert.equal(zero.status, 200, zero.text);
      assert.deepEqual([zero.json.balance, zero.json.unrecovered, zero.json.transaction.points], [0, 100, 0]);
      assert.deepEqual(await books(email), { balance: 0, tierPoints: 200 });
      assertProblem(await reverse(email, earned.id, { points: 201, reason: "x" }), 409, "reversal_exceeds_original");
    });

    test("a spend reversed gives the points back; redemptions, expiries and reversals are not reversible", async () => {
      const email = await newCustomer("spend");
      await earn(email, 100);
      const spent = await spend(email, 60);
      const res = await reverse(email, spent.id, { reason: "Charged twice" });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.json.balance, res.json.transaction.points, res.json.unrecovered], [100, 60, 0]);
      assert.deepEqual(await books(email), { balance: 100, tierPoints: 100 });
      assertProblem(await reverse(email, res.json.transaction.id, { reason: "x" }), 409, "transaction_not_reversible");
    });

    test("refusals: unknown or malformed transaction, another customer's, bad bodies; nothing changes", async () => {
      const email = await newCustomer("refuse");
      const other = await newCustomer("refuse-other");
      const earned = await earn(email, 50);
      assertProblem(await reverse(other, earned.id, { reason: "x" }), 404, "transaction_not_found");
      assertProblem(
        await reverse(email, "0193a5b2-bf60-7d85-9a99-7c6b5e4f3a21", { reason: "x" }),
        404,
        "transaction_not_found",
      );
      assertProblem(await reverse(email, "not-a-uuid", { reason: "x" }), 404, "transaction_not_found");
      assertProblem(await reverse("nobody@example.com", earned.id, { reason: "x" }), 404, "customer_not_found");
      assertProblem(await reverse(email, earned.id, {}), 400, "validation_failed");
      assertProblem(await reverse(email, earned.id, { points: 0, reason: "x" }), 400, "validation_failed");
      assertProblem(await reverse(email, earned.id, { reason: "x", extra: 1 }), 400, "validation_failed");
      assertProblem(
        await post(`${P(email)}/balance/increase`, { points: 1, orderId: "x".repeat(129) }),
        400,
        "validation_failed",
      );
      assertProblem(
        await post(`${P(email)}/balance/decrease`, { points: 1, orderId: "A-1" }),
        400,
        "validation_failed",
      );
      assert.deepEqual(await books(email), { balance: 50, tierPoints: 50 });
    });

    test("another program's key: 404, and its own program cannot reach program A's entries or orders", async () => {
      const email = await newCustomer("iso");
      const order = newOrder();
      const earned = await earn(email, 40, order);
      assertProblem(await reverse(email, earned.id, { reason: "x" }, { key: app.otherKey }), 404, "not_found");
      assertProblem(await refund(order, { reason: "x" }, { key: app.otherKey }), 404, "not_found");
      const B = `/v1/programs/${app.otherProgramId}`;
      assertProblem(
        await post(`${B}/orders/${order}/refund`, { reason: "x" }, { key: app.otherKey }),
        404,
        "order_not_found",
      );
      assert.deepEqual(await books(email), { balance: 40, tierPoints: 40 });
    });

    test("Idempotency-Key: a retried reversal or refund replays its answer and acts once", async () => {
      const email = await newCustomer("idem");
      const order = newOrder();
      const earned = await earn(email, 100, order);
      const first = await reverse(
        email,
        earned.id,
        { points: 10, reason: "r" },
        { headers: { "idempotency-key": `rv-${order}` } },
      );
      const again = await reverse(
        email,
        earned.id,
        { points: 10, reason: "r" },
        { headers: { "idempotency-key": `rv-${order}` } },
      );
      assert.equal(first.status, 200, first.text);
      assert.equal(again.text, first.text);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assertProblem(
        await reverse(email, earned.id, { points: 11, reason: "r" }, { headers: { "idempotency-key": `rv-${order}` } }),
        409,
        "idempotency_conflict",
      );
      const r1 = await refund(
        order,
        { amount: 50, total: 100, reason: "half" },
        { headers: { "idempotency-key": `rf-${order}` } },
      );
      const r2 = await refund(
        order,
        { amount: 50, total: 100, reason: "half" },
        { headers: { "idempotency-key": `rf-${order}` } },
      );
      assert.equal(r1.status, 200, r1.text);
      assert.equal(r2.text, r1.text);
      // Half of 100 = 50 reversed in all; 10 were already reversed by hand, so this refund took 40.
      assert.deepEqual([r1.json.pointsReversed, r1.json.totalReversed], [40, 50]);
      assert.deepEqual(await books(email), { balance: 50, tierPoints: 50 });
    });

    test("refunds across customers and entries: partial refunds add up to at most the order, a repeat reverses nothing", async () => {
      const [a, b] = [await newCustomer("ord-a"), await newCustomer("ord-b")];
      const order = newOrder();
      await earn(a, 101, order);
      await earn(b, 50, order);
      const flow = await post(`${P(b)}/earning-flows/buy`, { orderId: order });
      assert.equal(flow.status, 200, flow.text);
      assert.equal(flow.json.transaction.orderId, order);
      // orderPoints = 181. A third: floor(181/3) = 60.
      const third = await refund(order, { amount: 10, total: 30, reason: "one item" });
      assert.equal(third.status, 200, third.text);
      assert.deepEqual(
        [third.json.orderPoints, third.json.pointsReversed, third.json.totalReversed, third.json.unrecovered],
        [181, 60, 60, 0],
      );
      assert.ok(
        third.json.transactions.every(
          (t: { type: string; orderId: string }) => t.type === "reversal" && t.orderId === order,
        ),
      );
      const twoThirds = await refund(order, { amount: 10, total: 30, reason: "another item" });
      assert.deepEqual([twoThirds.json.pointsReversed, twoThirds.json.totalReversed], [60, 120]);
      const more = await refund(order, { amount: 20, total: 30, reason: "too much" });
      assert.deepEqual([more.json.pointsReversed, more.json.totalReversed, more.json.refundedShare], [61, 181, 1]);
      const repeat = await refund(order, { reason: "again" });
      assert.equal(repeat.status, 200, repeat.text);
      assert.deepEqual([repeat.json.pointsReversed, repeat.json.totalReversed, repeat.json.transactions], [0, 181, []]);
      assert.deepEqual(await books(a), { balance: 0, tierPoints: 0 });
      assert.deepEqual(await books(b), { balance: 0, tierPoints: 0 });
    });

    test("refund refusals: unknown order 404 order_not_found; amount without total, amount above total 400", async () => {
      assertProblem(await refund("NO-SUCH-ORDER", { reason: "x" }), 404, "order_not_found");
      const email = await newCustomer("rf");
      const order = newOrder();
      await earn(email, 10, order);
      assertProblem(await refund(order, { amount: 5, reason: "x" }), 400, "validation_failed");
      assertProblem(await refund(order, { amount: 6, total: 5, reason: "x" }), 400, "validation_failed");
      assertProblem(await refund(order, { amount: 0, total: 5, reason: "x" }), 400, "validation_failed");
      assertProblem(await refund(order, {}), 400, "validation_failed");
      assert.deepEqual(await books(email), { balance: 10, tierPoints: 10 });
    });

    test(
      "the events: transaction.reversed and order.refunded",
      { skip: backend === "pglite" && "SQL while the app runs: PostgreSQL" },
      async () => {
        const email = await newCustomer("ev");
        const order = newOrder();
        await earn(email, 80, order);
        const res = await refund(order, { amount: 1, total: 4, reason: "quarter" });
        assert.equal(res.status, 200, res.text);
        const events = await app.query<{ type: string; data: Record<string, unknown> }>(
          `SELECT type, data FROM "Event" WHERE "programId" = $1::uuid AND type IN ('transaction.reversed', 'order.refunded')
           AND (data->>'orderId') = $2 ORDER BY "createdAt", type DESC`,
          [app.programId, order],
        );
        assert.deepEqual(
          events.map((e) => e.type),
          ["transaction.reversed", "order.refunded"],
        );
        assert.deepEqual(
          [events[0]!.data.requested, events[0]!.data.points, events[0]!.data.unrecovered, events[0]!.data.tierPoints],
          [20, 20, 0, 20],
        );
        assert.deepEqual([events[1]!.data.pointsReversed, events[1]!.data.refundedShare], [20, 0.25]);
      },
    );

    test(
      "the CLI: loyalty reverse and loyalty refund call the same domain functions",
      { skip: backend === "pglite" && "the CLI while the app runs: PostgreSQL" },
      async () => {
        const email = await newCustomer("cli");
        const order = newOrder();
        const earned = await earn(email, 100, order);
        const reversed = await app.loyalty(
          "reverse",
          ...["--program", app.programId, "--email", email, "--transaction", earned.id, "--points", "30"],
          ...["--reason", "cli"],
        );
        assert.deepEqual([reversed.balance, reversed.unrecovered], [70, 0]);
        const refunded = await app.loyalty("refund", "--program", app.programId, "--order", order, "--reason", "cli");
        assert.deepEqual([refunded.pointsReversed, refunded.totalReversed], [70, 100]);
        assert.deepEqual(await books(email), { balance: 0, tierPoints: 0 });
      },
    );

    if (backend === "postgres") describe("under concurrency", () => concurrencyTests(() => app));
  });
}

/** PostgreSQL only (PGlite serves one connection at a time): on the postgres stack of the tests above. */
function concurrencyTests(stack: () => Stack<Fixtures<typeof TWO_PROGRAMS>>) {
  const app = {
    get programId() {
      return stack().programId;
    },
    api: ((...args) => stack().api(...args)) as Stack<Fixtures<typeof TWO_PROGRAMS>>["api"],
    query: <T>(sql: string, params?: unknown[]) => stack().query<T>(sql, params),
  };
  const A = () => `/v1/programs/${app.programId}`;
  const P = (email: string) => customerPath(app.programId, email);
  const post = (path: string, body: unknown) => app.api("POST", path, { body });
  let seq = 0;
  async function newCustomer(points: number, orderId?: string) {
    const email = `conc.${++seq}@example.com`;
    assert.equal((await post(`${A()}/integrations/api`, [{ email, feature: "user", payload: {} }])).status, 201);
    const res = await post(`${P(email)}/balance/increase`, { points, ...(orderId ? { orderId } : {}) });
    assert.equal(res.status, 200, res.text);
    return { email, entryId: res.json.transaction.id as string };
  }
  /** balance = Σ entries = Σ lots ≥ 0, and the requested points of each entry's reversals within it. */
  async function assertBooks(email: string) {
    const [row] = await app.query<{ balance: number; ledger: number; lots: number; over: number }>(
      `SELECT l.balance,
              (SELECT coalesce(sum(points), 0)::int FROM "LedgerEntry" e WHERE e."customerId" = c.id) AS ledger,
              (SELECT coalesce(sum(remaining), 0)::int FROM "PointLot" p WHERE p."customerId" = c.id) AS lots,
              (SELECT count(*)::int FROM "LedgerEntry" e WHERE e."customerId" = c.id AND abs(e.points) <
                 (SELECT coalesce(sum((r.metadata->>'requested')::int), 0) FROM "LedgerEntry" r WHERE r."reversesId" = e.id)) AS over
       FROM "Customer" c JOIN "LoyaltyData" l ON l."customerId" = c.id WHERE c."programId" = $1::uuid AND c.email = $2`,
      [app.programId, email],
    );
    assert.ok(row && row.balance >= 0);
    assert.equal(row.ledger, row.balance, "balance = Σ entries");
    assert.equal(row.lots, row.balance, "balance = Σ lots");
    assert.equal(row.over, 0, "no entry reversed beyond its points");
    return row;
  }

  test("20 parallel full refunds of one order over 3 customers: the order is reversed exactly once", async () => {
    const order = "CONC-1";
    const customers = [await newCustomer(100, order), await newCustomer(200, order), await newCustomer(300, order)];
    const results = await Promise.all(
      Array.from({ length: 20 }, () => post(`${A()}/orders/${order}/refund`, { reason: "r" })),
    );
    assert.deepEqual([...new Set(results.map((r) => r.status))], [200], results.map((r) => r.text).join("\n"));
    assert.equal(
      results.reduce((s, r) => s + r.json.pointsReversed, 0),
      600,
    );
    for (const c of customers) assert.equal((await assertBooks(c.email)).balance, 0);
  });

  test("20 parallel refunds of a tenth each: they add up to the whole order, never more", async () => {
    const order = "CONC-2";
    const c = await newCustomer(1000, order);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => post(`${A()}/orders/${order}/refund`, { amount: 10, total: 100, reason: "r" })),
    );
    assert.deepEqual([...new Set(results.map((r) => r.status))], [200]);
    assert.equal(
      results.reduce((s, r) => s + r.json.pointsReversed, 0),
      1000,
    );
    assert.equal(results.filter((r) => r.json.pointsReversed === 100).length, 10);
    assert.equal((await assertBooks(c.email)).balance, 0);
  });

  test("a refund racing spends: never below zero, the unrecovered points account for the rest", async () => {
    const order = "CONC-3";
    const c = await newCustomer(500, order);
    const results = await Promise.all([
      post(`${A()}/orders/${order}/refund`, { reason: "r" }),
      ...Array.from({ length: 10 }, () => post(`${P(c.email)}/balance/decrease`, { points: 40 })),
    ]);
    const [refund, ...spends] = results;
    assert.equal(refund!.status, 200, refund!.text);
    const spent = spends.filter((s) => s.status === 200).length * 40;
    for (const s of spends) assert.ok(s.status === 200 || s.status === 409, s.text);
    const books = await assertBooks(c.email);
    // The refund took what was left when it ran; what it could not take had been spent.
    assert.equal(refund!.json.pointsReversed, 500);
    assert.equal(books.balance, 500 - spent - (500 - refund!.json.unrecovered));
    assert.equal(books.balance, 0, "the refund reverses everything that was not spent before it");
  });

  test("30 parallel partial reversals of 50 of one 1000-point entry: 20 succeed, the sum never exceeds it", async () => {
    const c = await newCustomer(1000);
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        post(`${P(c.email)}/transactions/${c.entryId}/reverse`, { points: 50, reason: "r" }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 20);
    for (const r of results.filter((r) => r.status !== 200)) assertProblem(r, 409, "reversal_exceeds_original");
    assert.equal((await assertBooks(c.email)).balance, 0);
  });
}
