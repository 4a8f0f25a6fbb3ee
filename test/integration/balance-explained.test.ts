/**
 * "Why is my balance X?" over HTTP against the built app, on PGlite and (with TEST_DATABASE_URL) PostgreSQL:
 *   GET /customers/{email}/balance        GET /me/balance (customer token)
 * The open lots add up to the balance after earns, spends, redemptions and expiry (also with more lots than are
 * listed, and while other requests change the balance); the 30/60/90-day windows and the monthly buckets; tier points
 * of the period, what counts and what does not, a period that ended but was not closed yet; the refusals.
 *
 * Fixtures: POINTS (program A: Bronze 0, Silver 1000, Gold 5000, points expiring after 12 months; program B and its
 * key). Expiry dates and a period's end are moved with SQL (lots earned "now" expire in a year, periods end in one).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BalanceExplained } from "@/lib/api/schemas/balance-explained";
import { MAX_LISTED_LOTS } from "@/lib/domain/balance-explained-limits";
import { BACKENDS, customerPath, openStack, type ApiOptions, type Fixtures, type Stack } from "../support/stack";
import { newEmail, POINTS } from "../support/fixtures";
import { assertProblem } from "../support/assertions";

const DAY_MS = 86_400_000;

/** "2026-11" of an ISO time, in UTC. */
const monthOf = (iso: string) => iso.slice(0, 7);

for (const backend of BACKENDS) {
  describe(`Balance explained [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof POINTS>>;
    before(async () => {
      stack = await openStack(backend, POINTS, { start: true });
    });
    after(() => stack?.close());

    const A = () => `/v1/programs/${stack.programId}`;
    const C = (email: string) => customerPath(stack.programId, email);
    const call = (method: string, path: string, options?: ApiOptions) => stack.api(method, path, options);
    async function newCustomer(label: string) {
      const email = newEmail(label);
      const res = await call("POST", `${A()}/integrations/api`, { body: [{ email, feature: "user", payload: {} }] });
      assert.equal(res.status, 201, res.text);
      return email;
    }
    async function move(email: string, way: "increase" | "decrease", points: number) {
      const res = await call("POST", `${C(email)}/balance/${way}`, { body: { points } });
      assert.equal(res.status, 200, res.text);
      return res.json.transaction.id as string;
    }
    /** The explanation, checked against its schema (no field more or less) and its own arithmetic. */
    async function explained(email: string, options?: ApiOptions) {
      const res = await call("GET", `${C(email)}/balance`, options);
      assert.equal(res.status, 200, res.text);
      return checked(res.json);
    }
    function checked(body: unknown) {
      const parsed = BalanceExplained.parse(body);
      assert.deepEqual(parsed, body, "exactly the documented fields");
      const listed = parsed.lots.reduce((s, l) => s + l.remaining, 0);
      assert.equal(listed + parsed.unlistedPoints, parsed.balance, "the lots add up to the balance");
      assert.equal(parsed.lotsTruncated, parsed.lotsCount > parsed.lots.length);
      const { within30Days, within60Days, within90Days } = parsed.expiring;
      assert.ok(within30Days <= within60Days && within60Days <= within90Days && within90Days <= parsed.balance);
      return parsed;
    }
    /** PGlite admits one process: the app stops while the test's SQL or the CLI runs. */
    async function offline<T>(work: () => Promise<T>): Promise<T> {
      if (backend === "pglite") await stack.stopAll();
      try {
        return await work();
      } finally {
        if (backend === "pglite") await stack.start();
      }
    }

    test("the lots add up to the balance after earns and a spend; earns count for the tier, the spend does not", async () => {
      const email = await newCustomer("explain");
      const first = await move(email, "increase", 500);
      const second = await move(email, "increase", 700);
      await move(email, "decrease", 300);
      const customer = (await call("GET", C(email))).json;
      const x = await explained(email);
      assert.equal(x.balance, 900);
      // The spend took the lot that expires first (the older one).
      assert.deepEqual(
        x.lots.map((l) => [l.transactionId, l.type, l.points, l.remaining]),
        [
          [first, "earn", 500, 200],
          [second, "earn", 700, 700],
        ],
      );
      assert.deepEqual([x.lotsCount, x.lotsTruncated, x.unlistedPoints], [2, false, 0]);
      assert.ok(x.lots.every((l) => l.expiresAt && Date.parse(l.expiresAt) > Date.now() + 300 * DAY_MS));
      assert.deepEqual(x.expiring, { within30Days: 0, within60Days: 0, within90Days: 0 });
      assert.equal(x.expiringByMonth.length, 12);
      assert.equal(x.expiringByMonth[0]!.month, monthOf(x.asOf));
      assert.ok(
        x.expiringByMonth.every((m) => m.points === 0),
        "a year away: beyond the chart",
      );
      assert.deepEqual(x.tier, {
        current: { id: stack.tiers.silver, name: "Silver", requiredPoints: 1000 },
        status: "earned",
        projected: { id: stack.tiers.silver, name: "Silver", requiredPoints: 1000 },
        next: { id: stack.tiers.gold, name: "Gold", requiredPoints: 5000 },
        pointsToNext: 3800,
        points: 1200,
        periodStart: customer.createdAt,
        periodEnd: customer.customerTier.recalculationDate,
        earned: { points: 1200, entries: 2 },
        reversed: { points: 0, entries: 0 },
        notCounted: [{ type: "spend", points: -300, entries: 1 }],
      });
      assert.equal(x.tier.points, customer.customerTier.currentTierPoints);
    });

    test("a reversed earn of this period lowers its tier points by what was requested, spent points included", async () => {
      const email = await newCustomer("explain-reversed");
      const earn = await move(email, "increase", 600);
      await move(email, "decrease", 500);
      const res = await call("POST", `${C(email)}/transactions/${earn}/reverse`, {
        body: { points: 400, reason: "order returned" },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.unrecovered, 300);
      const customer = (await call("GET", C(email))).json;
      const x = await explained(email);
      assert.equal(x.balance, 0);
      assert.deepEqual(
        [x.tier.earned, x.tier.reversed],
        [
          { points: 600, entries: 1 },
          { points: 400, entries: 1 },
        ],
      );
      assert.equal(x.tier.points, 200);
      assert.equal(
        x.tier.points,
        customer.customerTier.currentTierPoints,
        "the explanation agrees with the tier state",
      );
      assert.ok(!x.tier.notCounted.some((k) => k.type === "reversal"), "the reversal is counted, not listed apart");
    });

    test("/me/balance answers the same for the token's customer; other programs and unknown customers are refused", async () => {
      const email = await newCustomer("me");
      await move(email, "increase", 40);
      const token = (await call("GET", `${C(email)}/token`)).json.token as string;
      const bearer = { key: null, headers: { authorization: `Bearer ${token}` } };
      const mine = await call("GET", `${A()}/me/balance`, bearer);
      assert.equal(mine.status, 200, mine.text);
      const { asOf: _a, ...viaMe } = checked(mine.json);
      const { asOf: _b, ...viaKey } = await explained(email);
      assert.deepEqual(viaMe, viaKey);
      assert.equal(viaMe.balance, 40);

      const B = `/v1/programs/${stack.otherProgramId}`;
      assertProblem(await call("GET", `${C(newEmail("nobody"))}/balance`), 404, "customer_not_found");
      assertProblem(await call("GET", `${C(email)}/balance`, { key: stack.otherKey }), 404, "not_found");
      assertProblem(await call("GET", `${customerPath(stack.otherProgramId, email)}/balance`), 404, "not_found");
      assertProblem(
        await call("GET", `${customerPath(stack.otherProgramId, email)}/balance`, { key: stack.otherKey }),
        404,
        "customer_not_found",
      );
      assertProblem(await call("GET", `${C(email)}/balance`, { key: null }), 401, "unauthorized");
      assertProblem(await call("GET", `${B}/me/balance`, bearer), 401, "unauthorized");
      assertProblem(await call("GET", `${A()}/me/balance`), 401, "unauthorized");
      const post = await call("POST", `${C(email)}/balance`, { body: {} });
      assertProblem(post, 405, "method_not_allowed");
      assert.equal(post.headers.get("allow"), "GET, HEAD, OPTIONS");
      // The routes beside it are unchanged.
      assert.equal((await call("POST", `${C(email)}/balance/increase`, { body: { points: 1 } })).status, 200);
    });

    test("more lots than are listed: the first ones by expiry, a count, and the points of the rest", async () => {
      const email = await newCustomer("many");
      const n = MAX_LISTED_LOTS + 5;
      for (let i = 0; i < n; i += 15)
        await Promise.all(
          Array.from({ length: Math.min(15, n - i) }, (_, j) =>
            call("POST", `${C(email)}/balance/increase`, { body: { points: i + j + 1 } }).then((r) =>
              assert.equal(r.status, 200, r.text),
            ),
          ),
        );
      const x = await explained(email);
      assert.equal(x.balance, (n * (n + 1)) / 2);
      assert.deepEqual([x.lots.length, x.lotsCount, x.lotsTruncated], [MAX_LISTED_LOTS, n, true]);
      assert.ok(x.unlistedPoints > 0);
      const order = x.lots.map((l) => `${l.expiresAt}|${l.earnedAt}`);
      assert.deepEqual(order, [...order].sort(), "soonest expiry first");
      assert.equal(x.tier.earned.entries, n);
      assert.equal(x.tier.earned.points, x.tier.points);
    });

    test("while the balance changes, every explanation still adds up (one snapshot)", async () => {
      const email = await newCustomer("busy");
      await move(email, "increase", 1000);
      const writes = Array.from({ length: 24 }, (_, i) =>
        call("POST", `${C(email)}/balance/${i % 3 === 2 ? "decrease" : "increase"}`, { body: { points: 7 + i } }),
      );
      const reads = Array.from({ length: 12 }, () => call("GET", `${C(email)}/balance`));
      const answers = await Promise.all([...writes, ...reads]);
      for (const r of answers.slice(0, writes.length)) assert.equal(r.status, 200, r.text);
      for (const r of answers.slice(writes.length)) {
        assert.equal(r.status, 200, r.text);
        checked(r.json);
      }
    });

    test("expiring windows and months; points past expiry until a spend expires them; a period ended but not closed yet", async () => {
      const email = await newCustomer("expiring");
      const ids: string[] = [];
      for (const points of [10, 20, 40, 80, 160]) ids.push(await move(email, "increase", points));
      await move(email, "increase", 900); // 1,210 tier points: Silver
      const customerId = (await call("GET", C(email))).json.id as string;
      // Lots expiring in 10, 45, 80 and 200 days, and one a day ago (not expired yet: no job ran). The customer joined
      // 400 days ago, the earns move two days back and the period's end to yesterday: a period that ended and that the
      // tier job has not closed yet.
      const days = [-1, 10, 45, 80, 200];
      await offline(async () => {
        for (const [i, d] of days.entries())
          await stack.query(
            `UPDATE "PointLot" SET "expiresAt" = now() + make_interval(days => $2) WHERE "ledgerEntryId" = $1::uuid`,
            [ids[i], d],
          );
        await stack.query(
          `UPDATE "LedgerEntry" SET "createdAt" = "createdAt" - interval '2 days' WHERE "customerId" = $1::uuid`,
          [customerId],
        );
        await stack.query(
          `UPDATE "CustomerTier" SET "recalculationDate" = now() - interval '1 day' WHERE "customerId" = $1::uuid`,
          [customerId],
        );
        await stack.query(`UPDATE "Customer" SET "createdAt" = now() - interval '400 days' WHERE id = $1::uuid`, [
          customerId,
        ]);
      });
      const x = await explained(email);
      assert.equal(x.balance, 1210);
      assert.deepEqual(
        x.lots.map((l) => l.remaining),
        [10, 20, 40, 80, 160, 900],
        "soonest expiry first",
      );
      assert.deepEqual(x.expiring, { within30Days: 30, within60Days: 70, within90Days: 150 });
      const expected = new Map<string, number>();
      const thisMonth = monthOf(x.asOf);
      for (const lot of x.lots.slice(0, 5)) {
        const month = monthOf(lot.expiresAt!) < thisMonth ? thisMonth : monthOf(lot.expiresAt!);
        expected.set(month, (expected.get(month) ?? 0) + lot.remaining);
      }
      for (const m of x.expiringByMonth) assert.equal(m.points, expected.get(m.month) ?? 0, m.month);
      assert.equal(
        x.expiringByMonth.reduce((s, m) => s + m.points, 0),
        310,
        "all but the 900 (a year away) within 12 months",
      );
      // As of now the period has closed: its 1,210 points carry Silver; nothing earned in the new period yet.
      assert.equal(x.tier.points, 0);
      assert.deepEqual(x.tier.current, { id: stack.tiers.silver, name: "Silver", requiredPoints: 1000 });
      assert.equal(x.tier.status, "carried");
      assert.deepEqual(x.tier.projected, { id: stack.tiers.bronze, name: "Bronze", requiredPoints: 0 });
      assert.deepEqual(x.tier.next, { id: stack.tiers.gold, name: "Gold", requiredPoints: 5000 });
      assert.equal(x.tier.pointsToNext, 5000);
      const [start, end] = [Date.parse(x.tier.periodStart), Date.parse(x.tier.periodEnd!)];
      assert.ok(start < Date.now() - DAY_MS / 2 && start > Date.now() - 2 * DAY_MS, "the period started yesterday");
      assert.ok(end > Date.now() + 300 * DAY_MS, "and ends in a year");
      assert.deepEqual([x.tier.earned, x.tier.notCounted], [{ points: 0, entries: 0 }, []]);

      // A spend first expires the overdue lot (ledger.ts), then takes the lot that expires next.
      await move(email, "decrease", 5);
      const y = await explained(email);
      assert.equal(y.balance, 1195);
      assert.deepEqual(
        y.lots.map((l) => l.remaining),
        [15, 40, 80, 160, 900],
      );
      assert.deepEqual(y.expiring, { within30Days: 15, within60Days: 55, within90Days: 135 });
      assert.deepEqual(y.tier.notCounted, [
        { type: "expire", points: -10, entries: 1 },
        { type: "spend", points: -5, entries: 1 },
      ]);
      // Reading wrote nothing: the stored tier state is still the old period's.
      assert.equal((await call("GET", C(email))).json.customerTier.currentTierPoints, 1210);
    });
  });
}
