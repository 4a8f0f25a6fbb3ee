/**
 * The points endpoints of API.md §3 over HTTP against the built app, on PGlite and (with TEST_DATABASE_URL) on
 * PostgreSQL:
 *   POST /customers/{email}/balance/increase          POST /customers/{email}/balance/decrease
 *   GET  /customers/{email}/transactions              GET  /tiers
 *   POST /customers/{email}/earning-flows/{flowKey}
 * Every success and error path, Idempotency-Key replays and conflicts, and (last, with the app restarted around the
 * admin CLI) the expiry and tier recalculation jobs as seen through the API.
 *
 * Fixtures (POINTS in test/support/fixtures.ts, made with the CLI before the app starts): program A with tiers Bronze 0
 * ×1, Silver 1000 ×1.25, Gold 5000 ×1.5, points expiring after 12 months, and the flows visit (10; optional param
 * `store`), purchase (0.5 per unit of `amount`), receipt (2 per unit of `amount` 1–500; optional `items` 1–50), daily
 * (10, cap 25 a day), limited (10, cap 15 in all) and welcome (50, once); program B with one tier, no expiry and its
 * own `visit` flow worth 99, declaring no params.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  BACKENDS,
  customerPath,
  openStack,
  type ApiOptions,
  type ApiResponse,
  type Fixtures,
  type Stack,
} from "../support/stack";
import { EXPIRY_MONTHS, POINTS } from "../support/fixtures";
import { assertProblem, assertRequestId, assertTier, ISO_MS, problemPaths } from "../support/assertions";

/** API.md §4's ledger entry, plus the metadata given with the request. */
const TRANSACTION_FIELDS = [
  "id",
  "customerId",
  "type",
  "points",
  "balanceAfter",
  "reason",
  "source",
  "actor",
  "idempotencyKey",
  "metadata",
  "orderId",
  "reversesId",
  "createdAt",
  "expiresAt",
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Calendar months in UTC, clamped to the month's end: when points earned at `iso` expire. */
function plusMonths(iso: string, months: number): string {
  const d = new Date(iso);
  const first = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(d.getUTCDate(), last));
  first.setUTCHours(d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
  return first.toISOString();
}

for (const backend of BACKENDS) {
  describe(`Points API: balance, history, tiers and earning flows [${backend}]`, () => {
    let app: Stack<Fixtures<typeof POINTS>>;
    before(async () => {
      app = await openStack(backend, POINTS, { start: true });
    });
    after(() => app?.close());

    const A = () => `/v1/programs/${app.programId}`;
    const call = async (method: string, path: string, options?: ApiOptions): Promise<ApiResponse> => {
      const res = await app.api(method, path, options);
      assertRequestId(res);
      return res;
    };
    const P = (email: string) => customerPath(app.programId, email);
    const increase = (email: string, body: unknown, options: Omit<ApiOptions, "body"> = {}) =>
      call("POST", `${P(email)}/balance/increase`, { ...options, body });
    const decrease = (email: string, body: unknown, options: Omit<ApiOptions, "body"> = {}) =>
      call("POST", `${P(email)}/balance/decrease`, { ...options, body });
    const runFlow = (email: string, key: string, body: unknown = {}, options: Omit<ApiOptions, "body"> = {}) =>
      call("POST", `${P(email)}/earning-flows/${encodeURIComponent(key)}`, { ...options, body });
    const history = (email: string, query = "", options: ApiOptions = {}) =>
      call("GET", `${P(email)}/transactions${query}`, options);

    let seq = 0;
    /** A new customer of program A (or B), made through the API; its e-mail. */
    async function newCustomer(label: string, program: "A" | "B" = "A"): Promise<string> {
      const email = `${label}.${++seq}@example.com`;
      const programId = program === "A" ? app.programId : app.otherProgramId;
      const res = await call("POST", `/v1/programs/${programId}/integrations/api`, {
        key: program === "A" ? app.key : app.otherKey,
        body: [{ email, feature: "user", payload: {} }],
      });
      assert.equal(res.status, 201, res.text);
      return email;
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async function customer(email: string, key = app.key, programId = app.programId): Promise<any> {
      const res = await call("GET", customerPath(programId, email), { key });
      assert.equal(res.status, 200, res.text);
      return res.json;
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async function entries(email: string): Promise<any[]> {
      const res = await history(email, "?limit=200");
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.nextCursor, null);
      return res.json.data;
    }
    /** Balance and ledger of a customer, to prove that a refused request wrote nothing. */
    async function snapshot(email: string) {
      const c = await customer(email);
      return {
        balance: c.loyaltyData.balance,
        customerTier: c.customerTier,
        tierStatus: c.loyaltyData.tierStatus,
        ledger: await entries(email),
      };
    }
    /** A 200 JSON response with exactly these top-level keys. */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    function ok(res: ApiResponse, keys: string[]): any {
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json\b/);
      assert.deepEqual(Object.keys(res.json).sort(), [...keys].sort());
      return res.json;
    }
    /** A ledger entry of API.md §4, with the given values. */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    function assertTransaction(t: any, expected: Record<string, unknown>) {
      assert.deepEqual(
        Object.keys(t).sort(),
        [...TRANSACTION_FIELDS].sort(),
        "a transaction has exactly API.md §4's fields",
      );
      assert.match(t.id, UUID);
      assert.match(t.customerId, UUID);
      assert.match(t.createdAt, ISO_MS);
      assert.ok(Number.isInteger(t.points) && t.points !== 0);
      assert.ok(Number.isInteger(t.balanceAfter) && t.balanceAfter >= 0);
      if (t.expiresAt !== null) assert.match(t.expiresAt, ISO_MS);
      for (const [k, v] of Object.entries(expected)) assert.deepEqual(t[k], v, `transaction.${k}`);
    }
    /** Program A's earned points expire EXPIRY_MONTHS after they were earned. */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const expiryOf = (t: any) => plusMonths(t.createdAt, EXPIRY_MONTHS);
    const actor = () => `api_key:${app.keyId}`;

    describe("Increase balance", () => {
      test("200 { balance, transaction }: an earn entry with reason, metadata, actor and the expiry date", async () => {
        const email = await newCustomer("inc");
        const c = await customer(email);
        const body = ok(
          await increase(email, {
            points: 150,
            reason: "  welcome bonus ",
            metadata: { order: "A-1", total: 12.5, gift: true, note: null },
          }),
          ["balance", "transaction"],
        );
        assert.equal(body.balance, 150);
        assertTransaction(body.transaction, {
          customerId: c.id,
          type: "earn",
          points: 150,
          balanceAfter: 150,
          reason: "welcome bonus",
          source: "api",
          actor: actor(),
          idempotencyKey: null,
          metadata: { order: "A-1", total: 12.5, gift: true, note: null },
        });
        assert.equal(
          body.transaction.expiresAt,
          expiryOf(body.transaction),
          "points expire 12 months after they are earned",
        );
        assert.ok(Math.abs(Date.parse(body.transaction.createdAt) - Date.now()) < 60_000, "createdAt is now");
        const after = await customer(email);
        assert.equal(after.loyaltyData.balance, 150);
        assert.deepEqual(await entries(email), [body.transaction], "the history holds exactly that entry");

        const second = ok(await increase(email, { points: 1 }), ["balance", "transaction"]);
        assert.equal(second.balance, 151);
        assertTransaction(second.transaction, {
          type: "earn",
          points: 1,
          balanceAfter: 151,
          reason: null,
          metadata: null,
        });
      });

      test("the smallest and largest amounts (1 and 1,000,000,000) are accepted", async () => {
        const email = await newCustomer("bounds");
        assert.equal(ok(await increase(email, { points: 1 }), ["balance", "transaction"]).balance, 1);
        assert.equal(
          ok(await increase(email, { points: 1_000_000_000 }), ["balance", "transaction"]).balance,
          1_000_000_001,
        );
      });

      test("earned points count towards tiers at once: 1000 points → Silver, earned, tierChangedAt now", async () => {
        const email = await newCustomer("upgrade");
        const before = await customer(email);
        assert.equal(before.customerTier.currentTierId, app.tiers.bronze, "a new customer is on the base tier");
        assert.equal(before.loyaltyData.tierStatus, "base");
        await increase(email, { points: 999 });
        assert.equal((await customer(email)).customerTier.currentTierId, app.tiers.bronze);
        const started = Date.now();
        await increase(email, { points: 1 });
        const c = await customer(email);
        assert.equal(c.customerTier.currentTierId, app.tiers.silver);
        assert.equal(c.customerTier.currentTier.name, "Silver");
        assert.equal(c.customerTier.currentTierPoints, 1000);
        assert.equal(c.loyaltyData.tierStatus, "earned");
        assert.ok(Date.parse(c.customerTier.tierChangedAt) >= started - 5000, "tierChangedAt is the upgrade's time");
        await increase(email, { points: 4000 });
        const gold = await customer(email);
        assert.equal(gold.customerTier.currentTierId, app.tiers.gold);
        assert.equal(gold.customerTier.currentTierPoints, 5000);
      });

      test("the e-mail in the path is URL-encoded and matched case-insensitively", async () => {
        const email = `Mixed.Case+tag.${++seq}@Example.COM`;
        assert.equal(
          (await call("POST", `${A()}/integrations/api`, { body: [{ email, feature: "user", payload: {} }] })).status,
          201,
        );
        assert.equal(ok(await increase(email, { points: 5 }), ["balance", "transaction"]).balance, 5);
        assert.equal(ok(await increase(email.toLowerCase(), { points: 5 }), ["balance", "transaction"]).balance, 10);
        assert.equal(ok(await decrease(email.toUpperCase(), { points: 3 }), ["balance", "transaction"]).balance, 7);
      });

      test("404 customer_not_found for an unknown or deleted customer", async () => {
        assertProblem(await increase("nobody.here@example.com", { points: 5 }), 404, "customer_not_found");
        const email = await newCustomer("deleted");
        await increase(email, { points: 5 });
        const del = await call("DELETE", `${A()}/integrations/api`, { body: [{ email, feature: "user" }] });
        assert.equal(del.status, 204, del.text);
        assertProblem(await increase(email, { points: 5 }), 404, "customer_not_found");
        assertProblem(await decrease(email, { points: 1 }), 404, "customer_not_found");
        assertProblem(await history(email), 404, "customer_not_found");
        assertProblem(await runFlow(email, "visit"), 404, "customer_not_found");
        // Another program's customer is not this program's.
        const b = await newCustomer("in-b", "B");
        assertProblem(await increase(b, { points: 5 }), 404, "customer_not_found");
      });

      test("401 without a valid api-key, 404 on another program's path; nothing written", async () => {
        const email = await newCustomer("auth");
        assertProblem(await increase(email, { points: 5 }, { key: null }), 401, "unauthorized");
        assertProblem(await increase(email, { points: 5 }, { key: "lk_live_nonsense" }), 401, "unauthorized");
        assertProblem(await increase(email, { points: 5 }, { key: app.otherKey }), 404, "not_found");
        assert.equal((await customer(email)).loyaltyData.balance, 0);
        assert.deepEqual(await entries(email), []);
      });

      test("400 validation_failed for bad points, unknown fields and oversized metadata or reason; nothing written", async () => {
        const email = await newCustomer("invalid");
        await increase(email, { points: 10 });
        const before = await snapshot(email);
        const manyKeys = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
        const cases: [unknown, string[]][] = [
          [{ points: 0 }, ["points"]],
          [{ points: -5 }, ["points"]],
          [{ points: 1.5 }, ["points"]],
          [{ points: 1_000_000_001 }, ["points"]],
          [{ points: "10" }, ["points"]],
          [{ points: null }, ["points"]],
          [{}, ["points"]],
          [{ points: 5, balance: 1000 }, [""]],
          [{ points: 5, metadata: manyKeys }, ["metadata"]],
          [{ points: 5, metadata: { note: "x".repeat(256) } }, ["metadata.note"]],
          [{ points: 5, metadata: { nested: { deep: 1 } } }, ["metadata.nested"]],
          [{ points: 5, metadata: ["a"] }, ["metadata"]],
          [{ points: 5, reason: "r".repeat(256) }, ["reason"]],
          [[{ points: 5 }], [""]],
        ];
        for (const [body, paths] of cases) {
          for (const op of [increase, decrease]) {
            const problem = assertProblem(await op(email, body), 400, "validation_failed");
            assert.deepEqual(problemPaths(problem), paths, `paths for ${JSON.stringify(body).slice(0, 80)}`);
          }
        }
        // The unknown field is named in the message of the problem at the body's root.
        const unknown = assertProblem(await increase(email, { points: 5, balance: 1000 }), 400, "validation_failed");
        assert.match(unknown.errors[0].message, /balance/);
        // 20 metadata keys are fine.
        const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
        assert.equal(
          ok(await increase(email, { points: 1, metadata: twenty }), ["balance", "transaction"]).balance,
          11,
        );
        await decrease(email, { points: 1 });
        const afterAll = await snapshot(email);
        assert.equal(afterAll.balance, before.balance);
        assert.equal(afterAll.ledger.length, before.ledger.length + 2, "only the two valid requests wrote entries");
      });

      test("415 without a JSON content type and 400 invalid_json for a malformed body", async () => {
        const email = await newCustomer("media");
        assertProblem(
          await increase(email, '{"points":5}', { headers: { "content-type": "text/plain" } }),
          415,
          "unsupported_media_type",
        );
        assertProblem(await increase(email, "{points: 5", {}), 400, "invalid_json");
        assert.deepEqual(await entries(email), []);
      });

      test("409 balance_limit beyond what a balance can hold (2,147,483,647); nothing written", async () => {
        const email = await newCustomer("limit");
        await increase(email, { points: 1_000_000_000 });
        await increase(email, { points: 1_000_000_000 });
        const before = await snapshot(email);
        assertProblem(await increase(email, { points: 1_000_000_000 }), 409, "balance_limit");
        assert.deepEqual(await snapshot(email), before);
        assert.equal(
          ok(await increase(email, { points: 147_483_647 }), ["balance", "transaction"]).balance,
          2_147_483_647,
        );
      });
    });

    describe("Decrease balance", () => {
      test("200 { balance, transaction }: a spend entry with negative points and no expiry", async () => {
        const email = await newCustomer("dec");
        await increase(email, { points: 100 });
        const body = ok(await decrease(email, { points: 40, reason: "gift card", metadata: { till: 7 } }), [
          "balance",
          "transaction",
        ]);
        assert.equal(body.balance, 60);
        assertTransaction(body.transaction, {
          type: "spend",
          points: -40,
          balanceAfter: 60,
          reason: "gift card",
          source: "api",
          actor: actor(),
          metadata: { till: 7 },
          expiresAt: null,
        });
        assert.equal((await customer(email)).loyaltyData.balance, 60);
        // Down to exactly zero.
        assert.equal(ok(await decrease(email, { points: 60 }), ["balance", "transaction"]).balance, 0);
        assert.equal((await customer(email)).loyaltyData.balance, 0);
      });

      test("409 insufficient_balance when it would go below zero; nothing written", async () => {
        const email = await newCustomer("insufficient");
        assertProblem(await decrease(email, { points: 1 }), 409, "insufficient_balance");
        assert.deepEqual(await entries(email), [], "not even a zero entry");
        await increase(email, { points: 1200 });
        await decrease(email, { points: 200 });
        const before = await snapshot(email);
        for (const points of [1001, 1_000_000_000])
          assertProblem(await decrease(email, { points }), 409, "insufficient_balance");
        assert.deepEqual(await snapshot(email), before);
        assert.equal(ok(await decrease(email, { points: 1000 }), ["balance", "transaction"]).balance, 0);
      });

      test("spends do not lower the tier or the period's tier points", async () => {
        const email = await newCustomer("spend-tier");
        await increase(email, { points: 1200 });
        await decrease(email, { points: 1200 });
        const c = await customer(email);
        assert.equal(c.loyaltyData.balance, 0);
        assert.equal(c.customerTier.currentTierId, app.tiers.silver);
        assert.equal(c.customerTier.currentTierPoints, 1200);
        assert.equal(c.loyaltyData.tierStatus, "earned");
      });
    });

    describe("Points history", () => {
      test("an empty ledger is { data: [], nextCursor: null }", async () => {
        const email = await newCustomer("empty");
        const body = ok(await history(email), ["data", "nextCursor"]);
        assert.deepEqual(body, { data: [], nextCursor: null });
      });

      test("newest first, every entry complete, balanceAfter consistent with the points", async () => {
        const email = await newCustomer("history");
        await increase(email, { points: 100 });
        await decrease(email, { points: 30 });
        await runFlow(email, "visit");
        await increase(email, { points: 5, reason: "last" });
        const list = ok(await history(email), ["data", "nextCursor"]);
        assert.equal(list.nextCursor, null);
        assert.deepEqual(
          list.data.map((t: { type: string; points: number }) => [t.type, t.points]),
          [
            ["earn", 5],
            ["earn", 10],
            ["spend", -30],
            ["earn", 100],
          ],
        );
        let balance = 0;
        for (const t of [...list.data].reverse()) {
          balance += t.points;
          assertTransaction(t, { balanceAfter: balance });
          assert.equal(t.expiresAt, t.points > 0 ? expiryOf(t) : null);
        }
        for (let i = 1; i < list.data.length; i++)
          assert.ok(list.data[i - 1].createdAt >= list.data[i].createdAt, "createdAt never increases down the list");
        assert.equal(list.data[1].source, "earning_flow");
        assert.equal((await customer(email)).loyaltyData.balance, balance);
      });

      test("cursor pagination: pages of `limit`, newest first, no gaps or repeats, nextCursor null at the end", async () => {
        const email = await newCustomer("pages");
        for (let i = 1; i <= 5; i++) await increase(email, { points: i });
        const all = await entries(email);
        assert.deepEqual(
          all.map((t) => t.points),
          [5, 4, 3, 2, 1],
        );
        const seen: string[] = [];
        let cursor: string | null = null;
        const sizes: number[] = [];
        do {
          const q: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
          const page = ok(await history(email, q), ["data", "nextCursor"]);
          sizes.push(page.data.length);
          seen.push(...page.data.map((t: { id: string }) => t.id));
          cursor = page.nextCursor;
          assert.ok(cursor === null || (typeof cursor === "string" && cursor.length > 0));
        } while (cursor !== null && sizes.length < 10);
        assert.deepEqual(sizes, [2, 2, 1]);
        assert.deepEqual(
          seen,
          all.map((t) => t.id),
        );
        // A page that ends exactly on the last entry has no next cursor; one short of it has.
        assert.equal(ok(await history(email, "?limit=5"), ["data", "nextCursor"]).nextCursor, null);
        const four = ok(await history(email, "?limit=4"), ["data", "nextCursor"]);
        assert.equal(four.data.length, 4);
        assert.equal(typeof four.nextCursor, "string");
        const rest = ok(await history(email, `?limit=4&cursor=${encodeURIComponent(four.nextCursor)}`), [
          "data",
          "nextCursor",
        ]);
        assert.deepEqual(
          rest.data.map((t: { points: number }) => t.points),
          [1],
        );
        assert.equal(rest.nextCursor, null);
      });

      test("a cursor keeps its place when newer entries arrive", async () => {
        const email = await newCustomer("stable");
        for (let i = 1; i <= 4; i++) await increase(email, { points: i });
        const first = ok(await history(email, "?limit=2"), ["data", "nextCursor"]);
        await increase(email, { points: 99 });
        const second = ok(await history(email, `?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`), [
          "data",
          "nextCursor",
        ]);
        assert.deepEqual(
          second.data.map((t: { points: number }) => t.points),
          [2, 1],
        );
        assert.equal(second.nextCursor, null);
      });

      test("limit defaults to 50 and accepts 1..200", async () => {
        const email = await newCustomer("limits");
        for (let i = 0; i < 3; i++) await increase(email, { points: 1 });
        assert.equal(ok(await history(email, "?limit=1"), ["data", "nextCursor"]).data.length, 1);
        assert.equal(ok(await history(email, "?limit=200"), ["data", "nextCursor"]).data.length, 3);
      });

      test("400 validation_failed for a limit outside 1..200 or not an integer, and for an invalid cursor", async () => {
        const email = await newCustomer("bad-query");
        await increase(email, { points: 1 });
        // Number() would read the last six as integers (100, 16, 5, 5, 5, 0): only decimal digits are a limit.
        for (const limit of ["0", "201", "-1", "1.5", "abc", "1e3", "1e2", "0x10", "%205", "5.0", "%2B5", ""]) {
          const p = assertProblem(await history(email, `?limit=${limit}`), 400, "validation_failed");
          assert.deepEqual(problemPaths(p), ["limit"], `limit=${limit}`);
        }
        const forged = Buffer.from("not-a-date|not-an-id").toString("base64url");
        const otherShape = Buffer.from(`2026-01-01T00:00:00.000000Z|${"z".repeat(36)}`).toString("base64url");
        for (const cursor of ["garbage!", forged, otherShape, "x".repeat(600)]) {
          const p = assertProblem(
            await history(email, `?cursor=${encodeURIComponent(cursor)}`),
            400,
            "validation_failed",
          );
          assert.deepEqual(problemPaths(p), ["cursor"], `cursor=${cursor.slice(0, 20)}`);
        }
      });

      test("404 customer_not_found; another program's key cannot read it", async () => {
        assertProblem(await history("ghost@example.com"), 404, "customer_not_found");
        const email = await newCustomer("private");
        assertProblem(await history(email, "", { key: app.otherKey }), 404, "not_found");
        assertProblem(await history(email, "", { key: null }), 401, "unauthorized");
      });
    });

    describe("Tiers", () => {
      test("200 { data: Tier[] } ordered by requiredPoints (not creation order), this program's only", async () => {
        const body = ok(await call("GET", `${A()}/tiers`), ["data"]);
        assert.deepEqual(
          body.data.map((t: { name: string; requiredPoints: number; factor: number }) => [
            t.name,
            t.requiredPoints,
            t.factor,
          ]),
          [
            ["Bronze", 0, 1],
            ["Silver", 1000, 1.25],
            ["Gold", 5000, 1.5],
          ],
        );
        body.data.forEach((t: unknown, i: number) => assertTier(`tier ${i}`, t));
        assert.deepEqual(
          body.data.map((t: { id: string }) => t.id),
          [app.tiers.bronze, app.tiers.silver, app.tiers.gold],
        );
        for (const t of body.data) assert.equal(t.programId, app.programId);

        const other = ok(await call("GET", `/v1/programs/${app.otherProgramId}/tiers`, { key: app.otherKey }), [
          "data",
        ]);
        assert.deepEqual(
          other.data.map((t: { id: string }) => t.id),
          [app.otherTierId],
        );
        assertProblem(await call("GET", `${A()}/tiers`, { key: app.otherKey }), 404, "not_found");
        assertProblem(await call("GET", `${A()}/tiers`, { key: null }), 401, "unauthorized");
      });
    });

    describe("Execute a custom earning flow", () => {
      const FLOW_RESULT = ["pointsEarned", "balance", "transaction", "capped", "pending"];

      test("a fixed flow: 200 { pointsEarned, balance, transaction, capped: null }, an earning_flow entry", async () => {
        const email = await newCustomer("visit");
        await increase(email, { points: 7 });
        const body = ok(await runFlow(email, "visit", { params: { store: 12 } }), FLOW_RESULT);
        assert.equal(body.pointsEarned, 10);
        assert.equal(body.balance, 17);
        assert.equal(body.capped, null);
        assert.equal(body.pending, null, "spendable at once: the program has no pending setting");
        assertTransaction(body.transaction, {
          type: "earn",
          source: "earning_flow",
          points: 10,
          balanceAfter: 17,
          reason: "Store visit",
          actor: actor(),
          metadata: { flowKey: "visit", params: { store: 12 } },
        });
        assert.equal(body.transaction.expiresAt, expiryOf(body.transaction));
        // `params` is optional.
        assert.equal(ok(await runFlow(email, "visit", {}), FLOW_RESULT).balance, 27);
        assert.equal((await customer(email)).loyaltyData.balance, 27);
        assert.equal((await entries(email)).length, 3);
      });

      test("the body may be left out altogether ({ params }? is optional, as the redeem route allows)", async () => {
        const email = await newCustomer("no-body");
        const body = ok(await call("POST", `${P(email)}/earning-flows/visit`), FLOW_RESULT);
        assert.equal(body.pointsEarned, 10);
      });

      test("per unit of a param × the current tier's factor, rounded down", async () => {
        const bronze = await newCustomer("per-unit-bronze");
        const cases: [number, number][] = [
          [33, 16], // 16.5
          [19.99, 9], // 9.995
          [2, 1],
          [1, 0], // 0.5 → 0: nothing earned, nothing written
        ];
        let balance = 0;
        for (const [amount, points] of cases) {
          const body = ok(await runFlow(bronze, "purchase", { params: { amount } }), FLOW_RESULT);
          balance += points;
          assert.deepEqual([body.pointsEarned, body.balance, body.capped], [points, balance, null], `amount ${amount}`);
          if (points === 0) assert.equal(body.transaction, null);
          else assertTransaction(body.transaction, { points, metadata: { flowKey: "purchase", params: { amount } } });
        }
        assert.equal((await entries(bronze)).length, 3);

        const silver = await newCustomer("per-unit-silver");
        await increase(silver, { points: 1000 });
        assert.equal(ok(await runFlow(silver, "purchase", { params: { amount: 33 } }), FLOW_RESULT).pointsEarned, 20); // 16.5 × 1.25 = 20.625
        assert.equal(ok(await runFlow(silver, "visit"), FLOW_RESULT).pointsEarned, 12); // 10 × 1.25 = 12.5

        const gold = await newCustomer("per-unit-gold");
        await increase(gold, { points: 5000 });
        assert.equal(ok(await runFlow(gold, "purchase", { params: { amount: 7 } }), FLOW_RESULT).pointsEarned, 5); // 3.5 × 1.5 = 5.25
        assert.equal(ok(await runFlow(gold, "visit"), FLOW_RESULT).pointsEarned, 15);
      });

      test("flow earnings count towards tiers: the factor applies from the run after the upgrade", async () => {
        const email = await newCustomer("flow-tier");
        const first = ok(await runFlow(email, "purchase", { params: { amount: 2000 } }), FLOW_RESULT);
        assert.equal(first.pointsEarned, 1000, "Bronze ×1");
        const c = await customer(email);
        assert.equal(c.customerTier.currentTierId, app.tiers.silver);
        assert.equal(c.customerTier.currentTierPoints, 1000);
        assert.equal(c.loyaltyData.tierStatus, "earned");
        assert.equal(
          ok(await runFlow(email, "purchase", { params: { amount: 2000 } }), FLOW_RESULT).pointsEarned,
          1250,
          "Silver ×1.25",
        );
      });

      test("400 validation_failed for a missing or non-numeric param and a malformed body; nothing written", async () => {
        const email = await newCustomer("flow-invalid");
        await increase(email, { points: 3 });
        const before = await snapshot(email);
        const cases: [unknown, string[]][] = [
          [{}, ["params.amount"]],
          [{ params: {} }, ["params.amount"]],
          [{ params: { amount: "33" } }, ["params.amount"]],
          [{ params: { amount: -1 } }, ["params.amount"]],
          [{ params: { amount: 1_000_000_001 } }, ["params.amount"]],
          [{ params: { amount: null } }, ["params.amount"]],
          [{ params: { total: 5 } }, ["params.amount", "params.total"]],
          [{ params: 5 }, ["params"]],
          [{ params: { amount: 5 }, extra: 1 }, [""]],
          // Nested deeper than the edge's JSON depth limit (32): refused with its path, never a 500 from walking it.
          [`{"params":{"amount":${"[".repeat(5000)}${"]".repeat(5000)}}}`, [`params.amount${"[0]".repeat(30)}`]],
        ];
        for (const [body, paths] of cases) {
          const p = assertProblem(await runFlow(email, "purchase", body), 400, "validation_failed");
          assert.deepEqual(problemPaths(p), paths, JSON.stringify(body));
        }
        assert.deepEqual(await snapshot(email), before);
      });

      test("a run sends only the flow's declared params: undeclared names, text, nesting, too many keys, out-of-bounds values are 400 by path; nothing written", async () => {
        const email = await newCustomer("flow-declared");
        await increase(email, { points: 3 });
        const before = await snapshot(email);
        let deep: unknown = 1;
        for (let i = 0; i < 8; i++) deep = { v: deep };
        const cases: [string, unknown, string[]][] = [
          ["receipt", { params: { amount: 10, email: 5 } }, ["params.email"]],
          ["receipt", { params: { amount: 10, note: "jane.doe@example.com" } }, ["params.note"]],
          ["receipt", { params: { amount: { value: 10 } } }, ["params.amount"]],
          ["receipt", { params: { amount: [10] } }, ["params.amount"]],
          ["receipt", { params: { amount: true } }, ["params.amount"]],
          ["receipt", { params: { amount: deep } }, ["params.amount"]],
          ["receipt", { params: { amount: 501 } }, ["params.amount"]],
          ["receipt", { params: { amount: 0.5 } }, ["params.amount"]],
          ["receipt", { params: { amount: 10, items: 51 } }, ["params.items"]],
          ["receipt", { params: { items: 5 } }, ["params.amount"]],
          ["receipt", { params: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 1])) }, ["params"]],
          ["receipt", { params: [10] }, ["params"]],
          ["visit", { params: { amount: 5 } }, ["params.amount"]],
          ["visit", { params: { store: "Lyon" } }, ["params.store"]],
          ["purchase", { params: { amount: 5, store: 1 } }, ["params.store"]],
        ];
        for (const [flow, body, paths] of cases) {
          const p = assertProblem(await runFlow(email, flow, body), 400, "validation_failed");
          assert.deepEqual(problemPaths(p), paths, `${flow} ${JSON.stringify(body).slice(0, 120)}`);
        }
        const b = await newCustomer("flow-declared-b", "B");
        const res = await call("POST", `${customerPath(app.otherProgramId, b)}/earning-flows/visit`, {
          key: app.otherKey,
          body: { params: { x: 1 } },
        });
        assert.deepEqual(
          problemPaths(assertProblem(res, 400, "validation_failed")),
          ["params.x"],
          "a flow that declares nothing takes nothing",
        );
        assert.deepEqual(await snapshot(email), before);
      });

      test("declared params within bounds are accepted and are all the ledger keeps", async () => {
        const email = await newCustomer("flow-declared-ok");
        const full = ok(await runFlow(email, "receipt", { params: { amount: 12.5, items: 3 } }), FLOW_RESULT);
        assert.equal(full.pointsEarned, 25);
        assertTransaction(full.transaction, {
          source: "earning_flow",
          metadata: { flowKey: "receipt", params: { amount: 12.5, items: 3 } },
        });
        const bare = ok(await runFlow(email, "receipt", { params: { amount: 500 } }), FLOW_RESULT);
        assertTransaction(bare.transaction, {
          points: 1000,
          metadata: { flowKey: "receipt", params: { amount: 500 } },
        });
        const visit = ok(await runFlow(email, "visit"), FLOW_RESULT);
        assertTransaction(visit.transaction, { metadata: { flowKey: "visit", params: {} } });
        assert.deepEqual(
          (await entries(email)).map((e) => e.metadata),
          [
            { flowKey: "visit", params: {} },
            { flowKey: "receipt", params: { amount: 500 } },
            { flowKey: "receipt", params: { amount: 12.5, items: 3 } },
          ],
        );
      });

      test("404 earning_flow_not_found for an unknown flow key, 404 customer_not_found for an unknown customer", async () => {
        const email = await newCustomer("flow-404");
        for (const key of ["nope", "VISIT", "visit ", "x".repeat(300)])
          assertProblem(await runFlow(email, key), 404, "earning_flow_not_found");
        assertProblem(await runFlow("nobody@example.com", "visit"), 404, "customer_not_found");
        assert.deepEqual(await entries(email), []);
      });

      test("a program's flows are its own: the same key runs program B's flow for program B", async () => {
        const b = await newCustomer("flow-b", "B");
        const res = await call("POST", `${customerPath(app.otherProgramId, b)}/earning-flows/visit`, {
          key: app.otherKey,
          body: {},
        });
        const body = ok(res, FLOW_RESULT);
        assert.equal(body.pointsEarned, 99);
        assert.equal(body.transaction.expiresAt, null, "program B's points do not expire");
        assertProblem(
          await call("POST", `${customerPath(app.otherProgramId, b)}/earning-flows/daily`, {
            key: app.otherKey,
            body: {},
          }),
          404,
          "earning_flow_not_found",
        );
      });

      test("caps: a per-day cap and a total cap fill up, then runs earn 0 with `capped` and transaction null", async () => {
        const email = await newCustomer("caps");
        const run = async (key: string) => ok(await runFlow(email, key), FLOW_RESULT);
        const daily = [await run("daily"), await run("daily"), await run("daily"), await run("daily")];
        assert.deepEqual(
          daily.map((r) => [r.pointsEarned, r.capped]),
          [
            [10, null],
            [10, null],
            [5, "cap_per_day"], // up to the cap of 25
            [0, "cap_per_day"],
          ],
        );
        assert.equal(daily[3].transaction, null);
        assert.equal(daily[3].balance, 25);
        const limited = [await run("limited"), await run("limited"), await run("limited")];
        assert.deepEqual(
          limited.map((r) => [r.pointsEarned, r.capped, r.balance]),
          [
            [10, null, 35],
            [5, "cap_total", 40],
            [0, "cap_total", 40],
          ],
        );
        assert.equal(limited[2].transaction, null);
        const welcome = [await run("welcome"), await run("welcome")];
        assert.deepEqual(
          welcome.map((r) => [r.pointsEarned, r.capped, r.balance]),
          [
            [50, null, 90],
            [0, "once", 90],
          ],
        );
        assert.equal(welcome[1].transaction, null);
        // Capped runs wrote nothing: 3 + 2 + 1 entries.
        const ledger = await entries(email);
        assert.equal(ledger.length, 6);
        assert.equal((await customer(email)).loyaltyData.balance, 90);
        // Caps are per customer.
        const other = await newCustomer("caps-other");
        assert.equal(ok(await runFlow(other, "welcome"), FLOW_RESULT).pointsEarned, 50);
        assert.equal(ok(await runFlow(other, "limited"), FLOW_RESULT).pointsEarned, 10);
      });
    });

    describe("Idempotency-Key", () => {
      test("a retry with the same key and body replays the stored response without a second entry", async () => {
        const email = await newCustomer("idem");
        const key = `inc-${seq}-${Date.now()}`;
        const first = await increase(email, { points: 10 }, { headers: { "Idempotency-Key": key } });
        const body = ok(first, ["balance", "transaction"]);
        assert.equal(first.headers.get("idempotent-replayed"), null);
        assert.equal(body.transaction.idempotencyKey, key, "the entry records its Idempotency-Key");
        await increase(email, { points: 5 }); // a later change: the replay still answers as the first time
        const again = await increase(email, { points: 10 }, { headers: { "Idempotency-Key": key } });
        assert.equal(again.status, 200);
        assert.equal(again.headers.get("idempotent-replayed"), "true");
        assert.deepEqual(again.json, body);
        assert.equal((await customer(email)).loyaltyData.balance, 15);
        assert.equal((await entries(email)).filter((t) => t.idempotencyKey === key).length, 1);
      });

      test("409 idempotency_conflict for the same key with another body or on another endpoint; nothing written", async () => {
        const email = await newCustomer("idem-conflict");
        const key = `conflict-${seq}`;
        ok(await increase(email, { points: 10 }, { headers: { "Idempotency-Key": key } }), ["balance", "transaction"]);
        const before = await snapshot(email);
        assertProblem(
          await increase(email, { points: 11 }, { headers: { "Idempotency-Key": key } }),
          409,
          "idempotency_conflict",
        );
        assertProblem(
          await decrease(email, { points: 10 }, { headers: { "Idempotency-Key": key } }),
          409,
          "idempotency_conflict",
        );
        assertProblem(
          await runFlow(email, "visit", {}, { headers: { "Idempotency-Key": key } }),
          409,
          "idempotency_conflict",
        );
        assert.deepEqual(await snapshot(email), before);
      });

      test("a retry that re-serialises the same JSON (key order, spacing, 10.0 for 10) replays; another meaning is 409", async () => {
        const email = await newCustomer("idem-canonical");
        const key = `canonical-${seq}`;
        const headers = { "Idempotency-Key": key };
        const sent = '{"points":10,"reason":"visit","metadata":{"store":"A1","till":3}}';
        const first = ok(await increase(email, sent, { headers }), ["balance", "transaction"]);
        for (const retry of [
          '{ "metadata": { "till": 3, "store": "A1" }, "reason": "visit", "points": 10 }',
          '{\n  "points": 10.0,\n  "reason": "vis\\u0069t",\n  "metadata": {"till":3,"store":"A1"}\n}',
        ]) {
          const again = await increase(email, retry, { headers });
          assert.equal(again.status, 200, again.text);
          assert.equal(again.headers.get("idempotent-replayed"), "true", retry);
          assert.deepEqual(again.json, first);
        }
        const before = await snapshot(email);
        assertProblem(
          await increase(email, '{"points":10,"reason":"visit","metadata":{"store":"A1","till":4}}', { headers }),
          409,
          "idempotency_conflict",
        );
        assertProblem(
          await increase(email, '{"points":10,"reason":"visit","metadata":{"store":"A1","till":"3"}}', { headers }),
          409,
          "idempotency_conflict",
        );
        assert.deepEqual(await snapshot(email), before);
        assert.equal(before.balance, 10);
      });

      test("keys are per API key: the same key under another key of the program acts again", async () => {
        const email = await newCustomer("idem-scope");
        const key = `scope-${seq}`;
        ok(await increase(email, { points: 10 }, { headers: { "Idempotency-Key": key } }), ["balance", "transaction"]);
        const other = await increase(
          email,
          { points: 10 },
          { key: app.secondKey, headers: { "Idempotency-Key": key } },
        );
        assert.equal(ok(other, ["balance", "transaction"]).balance, 20);
        assert.equal(other.headers.get("idempotent-replayed"), null);
      });

      test("decreases and flow runs are replayed too: no double spend, no double earning", async () => {
        const email = await newCustomer("idem-ops");
        await increase(email, { points: 100 });
        const spend = ok(await decrease(email, { points: 60 }, { headers: { "Idempotency-Key": "spend-1" } }), [
          "balance",
          "transaction",
        ]);
        const replayed = await decrease(email, { points: 60 }, { headers: { "Idempotency-Key": "spend-1" } });
        assert.equal(replayed.status, 200, "a replay, not a 409 insufficient_balance");
        assert.equal(replayed.headers.get("idempotent-replayed"), "true");
        assert.deepEqual(replayed.json, spend);
        const run = ok(await runFlow(email, "welcome", {}, { headers: { "Idempotency-Key": "welcome-1" } }), [
          "pointsEarned",
          "balance",
          "transaction",
          "capped",
          "pending",
        ]);
        const rerun = await runFlow(email, "welcome", {}, { headers: { "Idempotency-Key": "welcome-1" } });
        assert.equal(rerun.headers.get("idempotent-replayed"), "true");
        assert.deepEqual(rerun.json, run, "the replay says 50 earned, not capped");
        assert.equal((await customer(email)).loyaltyData.balance, 90);
        assert.equal((await entries(email)).length, 3);
      });

      test("400 for an Idempotency-Key longer than 255 characters; 255 is fine", async () => {
        const email = await newCustomer("idem-length");
        const p = assertProblem(
          await increase(email, { points: 1 }, { headers: { "Idempotency-Key": "k".repeat(256) } }),
          400,
          "validation_failed",
        );
        assert.deepEqual(problemPaths(p), ["Idempotency-Key"]);
        assert.deepEqual(await entries(email), []);
        ok(await increase(email, { points: 1 }, { headers: { "Idempotency-Key": "k".repeat(255) } }), [
          "balance",
          "transaction",
        ]);
      });
    });

    // Last: it moves the program's clock a year on for every customer.
    describe("Expiry and tier recalculation jobs (admin CLI), seen through the API", () => {
      test("points expire 12 months after they were earned as one expire entry; the period closes with its carry", async () => {
        const email = await newCustomer("jobs");
        const earned = ok(await increase(email, { points: 1200 }), ["balance", "transaction"]).transaction;
        await decrease(email, { points: 200 });
        const c = await customer(email);
        assert.equal(c.customerTier.currentTierId, app.tiers.silver);
        const recalculationDate: string = c.customerTier.recalculationDate;
        assert.equal(recalculationDate, plusMonths(c.loyaltyData.memberSince, 12), "a period is 12 months by default");
        const now = new Date(
          Math.max(Date.parse(earned.expiresAt), Date.parse(recalculationDate)) + 60_000,
        ).toISOString();

        await app.stopAll(); // PGlite: one process at a time
        const expired = await app.loyalty("points", "expire", "--program", app.programId, "--now", now);
        assert.ok(Number(expired.customers) >= 1 && Number(expired.points) >= 1000, JSON.stringify(expired));
        const recalculated = await app.loyalty("tiers", "recalculate", "--program", app.programId, "--now", now);
        assert.ok(Number(recalculated.recalculated) >= 1, JSON.stringify(recalculated));
        // Run again at the same time: nothing left to do.
        assert.deepEqual(await app.loyalty("points", "expire", "--program", app.programId, "--now", now), {
          customers: 0,
          points: 0,
        });
        assert.deepEqual(await app.loyalty("tiers", "recalculate", "--program", app.programId, "--now", now), {
          recalculated: 0,
        });
        await app.start();

        const [latest, ...older] = await entries(email);
        assertTransaction(latest, {
          type: "expire",
          points: -1000,
          balanceAfter: 0,
          source: "system",
          actor: "system",
          createdAt: now,
          expiresAt: null,
        });
        assert.equal(older.length, 2);
        const after = await customer(email);
        assert.equal(after.loyaltyData.balance, 0);
        assert.equal(after.customerTier.carryTierId, app.tiers.silver);
        assert.equal(after.customerTier.carryTierPoints, 1200);
        assert.equal(after.customerTier.currentTierPoints, 0);
        assert.equal(after.customerTier.currentTierId, app.tiers.silver, "the carried tier is kept");
        assert.equal(after.loyaltyData.tierStatus, "carried");
        assert.equal(after.customerTier.recalculationDate, plusMonths(recalculationDate, 12));
        assert.equal(after.customerTier.tierChangedAt, c.customerTier.tierChangedAt, "no tier change");
        // Expired points cannot be spent; new ones can.
        assertProblem(await decrease(email, { points: 1 }), 409, "insufficient_balance");
        assert.equal(ok(await increase(email, { points: 3 }), ["balance", "transaction"]).balance, 3);
      });
    });
  });
}
