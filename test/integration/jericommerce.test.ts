/**
 * Coming from JeriCommerce (issue 11 item 6, API.md §3) over HTTP against the built app, on PGlite and (with
 * TEST_DATABASE_URL) on PostgreSQL:
 *   POST /integrations/api with `loyalty` items (balance set through one `adjust` entry, memberSince, tier by name)
 *        and `users` items (alias of `user`);
 *   GET  /customers/token?email=&expires_in=            (alias of GET /customers/{email}/token, `{ accessToken }`)
 *   POST /custom-earning-flows/{flowKey}/execute        (alias of a flow run, `{ pointsAwarded, remainingExecutions, recurrence }`)
 *   `expires_in` bounds on both token routes; revoking every token of a program (CLI) → 401; the import script
 *   (scripts/import-jericommerce.ts) run against the app on a small CSV, twice.
 *
 * Fixtures: POINTS (test/support/fixtures.ts): program A with tiers Bronze 0 ×1, Silver 1000 ×1.25, Gold 5000 ×1.5,
 * points expiring after 12 months, and the flows visit (10), daily (10, cap 25 a day), welcome (50, once); program B
 * with its own key.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { BACKENDS, customerPath, openStack, type ApiOptions, type Fixtures, type Stack } from "../support/stack";
import { newEmail, POINTS } from "../support/fixtures";
import { assertProblem, assertRequestId, problemPaths } from "../support/assertions";

const run = promisify(execFile);
const DAY = 24 * 3600;

/** The claims of a JWT (not verified: the app verifies; the test reads its lifetime). */
const claims = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as { iat: number; exp: number; sub: string };

for (const backend of BACKENDS) {
  describe(`Coming from JeriCommerce: loyalty items, aliases, token lifetimes and revocation [${backend}]`, () => {
    let app: Stack<Fixtures<typeof POINTS>>;
    before(async () => {
      app = await openStack(backend, POINTS, { start: true });
    });
    after(() => app?.close());

    const A = () => `/v1/programs/${app.programId}`;
    const call = async (method: string, pathname: string, options?: ApiOptions) => {
      const res = await app.api(method, pathname, options);
      assertRequestId(res);
      return res;
    };
    const batch = (items: unknown, options: Omit<ApiOptions, "body"> = {}) =>
      call("POST", `${A()}/integrations/api`, { ...options, body: items });
    const users = (email: string, payload: Record<string, unknown> = {}) => ({ email, feature: "users", payload });
    const loyalty = (email: string, payload: Record<string, unknown>) => ({ email, feature: "loyalty", payload });
    const customer = async (email: string) => (await call("GET", customerPath(app.programId, email))).json;
    const entries = async (email: string) =>
      (await call("GET", `${customerPath(app.programId, email)}/transactions?limit=200`)).json.data as {
        type: string;
        points: number;
        balanceAfter: number;
        reason: string | null;
        source: string;
        expiresAt: string | null;
      }[];
    const OPENING = { balance: 1250, memberSince: "2021-03-14T09:26:53.000Z", tierStatus: "Silver" };

    test("a users item and a loyalty item create the customer with its balance (one adjust entry), memberSince and tier", async () => {
      const email = newEmail("jc-open");
      const res = await batch([
        users(email, { firstName: "Ana" }),
        loyalty(email, { ...OPENING, loyaltyCustomerId: `jc-${email}` }),
      ]);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.text, "");
      const c = await customer(email);
      assert.equal(c.userData.firstName, "Ana");
      assert.equal(c.loyaltyData.balance, 1250);
      assert.equal(c.loyaltyData.memberSince, OPENING.memberSince);
      assert.equal(c.loyaltyData.loyaltyCustomerId, `jc-${email}`);
      assert.equal(c.loyaltyData.tierStatus, "carried", "a migrated tier is held as carried until the period ends");
      assert.equal(c.customerTier.currentTier.name, "Silver");
      assert.equal(c.customerTier.carryTierId, app.tiers.silver);
      assert.equal(c.customerTier.currentTierPoints, 0, "an opening balance is not earned in this period");
      const [entry, ...more] = await entries(email);
      assert.equal(more.length, 0);
      assert.deepEqual(
        {
          type: entry!.type,
          points: entry!.points,
          balanceAfter: entry!.balanceAfter,
          reason: entry!.reason,
          source: entry!.source,
        },
        { type: "adjust", points: 1250, balanceAfter: 1250, reason: "opening balance (migration)", source: "api" },
      );
      assert.ok(entry!.expiresAt, "the opening points expire like any points added (program A: 12 months)");

      // Repeated, with or without a key: the same state, so no second entry and nothing else changes.
      for (const key of [undefined, "jc-repeat-1", "jc-repeat-2"]) {
        const again = await batch([loyalty(email, OPENING)], key ? { headers: { "idempotency-key": key } } : {});
        assert.equal(again.status, 201, again.text);
      }
      assert.equal((await entries(email)).length, 1, "same values twice → no second entry");
      assert.deepEqual(await customer(email), c);

      // A lower balance: one negative adjust entry of the difference; the ledger still sums to the balance.
      assert.equal((await batch([loyalty(email, { ...OPENING, balance: 1000, tierStatus: "bronze" })])).status, 201);
      const after = await customer(email);
      assert.equal(after.loyaltyData.balance, 1000);
      assert.equal(after.customerTier.currentTier.name, "Bronze", "tier names compare case-insensitively");
      assert.equal(after.loyaltyData.tierStatus, "base");
      const list = await entries(email);
      assert.deepEqual(
        list.map((e) => [e.type, e.points]),
        [
          ["adjust", -250],
          ["adjust", 1250],
        ],
      );
      assert.equal(
        list.reduce((sum, e) => sum + e.points, 0),
        after.loyaltyData.balance,
      );
    });

    test("a loyalty item without tierStatus (optional in JeriCommerce) sets balance and memberSince, and leaves the tier", async () => {
      const { tierStatus: _left, ...noTier } = OPENING;
      // A new customer: stays on the base tier.
      const fresh = newEmail("jc-no-tier");
      const created = await batch([users(fresh), loyalty(fresh, noTier)]);
      assert.equal(created.status, 201, created.text);
      const c = await customer(fresh);
      assert.equal(c.loyaltyData.balance, OPENING.balance);
      assert.equal(c.loyaltyData.memberSince, OPENING.memberSince);
      assert.equal(c.loyaltyData.tierStatus, "base");
      assert.equal(c.customerTier.currentTier.name, "Bronze");
      assert.equal(c.customerTier.carryTierId, null);

      // A customer migrated onto Silver: a later item without tierStatus keeps Silver (carried) as it was.
      const silver = newEmail("jc-keep-tier");
      assert.equal((await batch([users(silver), loyalty(silver, OPENING)])).status, 201);
      const before = await customer(silver);
      assert.equal(before.customerTier.currentTier.name, "Silver");
      const again = await batch([loyalty(silver, { ...noTier, balance: 900 })]);
      assert.equal(again.status, 201, again.text);
      const afterwards = await customer(silver);
      assert.equal(afterwards.loyaltyData.balance, 900);
      assert.equal(afterwards.loyaltyData.tierStatus, before.loyaltyData.tierStatus);
      assert.deepEqual(afterwards.customerTier, before.customerTier);
    });

    test('a missing required field reads "required", whatever its type', async () => {
      const fresh = newEmail("jc-required");
      const res = await batch([users(fresh), loyalty(fresh, {}), { feature: "users", payload: {} }]);
      assertProblem(res, 400, "validation_failed");
      assert.deepEqual(
        res.json.errors,
        [
          { path: "[1].payload.balance", message: "required" },
          { path: "[1].payload.memberSince", message: "required" },
          { path: "[2].email", message: "required" },
        ],
        res.text,
      );
      // The same on a plain route: increase balance without `points`.
      await batch([users(fresh)]);
      const increase = await call("POST", `${customerPath(app.programId, fresh)}/balance/increase`, { body: {} });
      assertProblem(increase, 400, "validation_failed");
      assert.deepEqual(increase.json.errors, [{ path: "points", message: "required" }]);
    });

    test("refusals: unknown tier (400 unknown_tier), unknown or erased customer (404), bad fields (400); nothing written", async () => {
      const fresh = newEmail("jc-refused");
      const unknown = await batch([users(fresh), loyalty(fresh, { ...OPENING, tierStatus: "Platinum" })]);
      assertProblem(unknown, 400, "unknown_tier");
      assert.deepEqual(problemPaths(unknown.json), ["[1].payload.tierStatus"]);
      assert.match(unknown.json.errors[0].message, /Bronze, Silver, Gold/);
      assertProblem(await call("GET", customerPath(app.programId, fresh)), 404, "customer_not_found");

      const nobody = await batch([loyalty(newEmail("jc-nobody"), OPENING), loyalty(newEmail("jc-nobody"), OPENING)]);
      assertProblem(nobody, 404, "customer_not_found");
      assert.deepEqual(problemPaths(nobody.json), ["[0].email", "[1].email"]);

      const erased = newEmail("jc-erased");
      assert.equal((await batch([users(erased)])).status, 201);
      assert.equal(
        (await call("DELETE", `${A()}/integrations/api`, { body: [{ email: erased, feature: "users" }] })).status,
        204,
      );
      const afterErasure = await batch([loyalty(erased, OPENING)]);
      assertProblem(afterErasure, 404, "customer_not_found");
      assert.deepEqual(problemPaths(afterErasure.json), ["[0].email"]);

      const invalid = await batch([loyalty(fresh, { balance: -5, memberSince: "soon", tierStatus: "" })]);
      assertProblem(invalid, 400, "validation_failed");
      assert.deepEqual(problemPaths(invalid.json), [
        "[0].payload.balance",
        "[0].payload.memberSince",
        "[0].payload.tierStatus",
      ]);
      assertProblem(await batch([{ email: fresh, feature: "points", payload: {} }]), 400, "unsupported_feature");

      // loyaltyCustomerId stays unique.
      const [a, b] = [newEmail("jc-id-a"), newEmail("jc-id-b")];
      assert.equal(
        (await batch([users(a), users(b), loyalty(a, { ...OPENING, loyaltyCustomerId: `same-${a}` })])).status,
        201,
      );
      const clash = await batch([loyalty(b, { ...OPENING, loyaltyCustomerId: `same-${a}` })]);
      assertProblem(clash, 409, "conflict");
      assert.deepEqual(problemPaths(clash.json), ["[0].payload.loyaltyCustomerId"]);
      assert.equal((await customer(b)).loyaltyData.balance, 0, "the refused batch changed nothing");
    });

    test("another program's key → 404 on every new path", async () => {
      const key = app.otherKey;
      const email = newEmail("jc-other");
      assert.equal((await batch([users(email)])).status, 201);
      assertProblem(await batch([loyalty(email, OPENING)], { key }), 404, "not_found");
      assertProblem(
        await call("GET", `${A()}/customers/token?email=${encodeURIComponent(email)}`, { key }),
        404,
        "not_found",
      );
      assertProblem(
        await call("POST", `${A()}/custom-earning-flows/visit/execute`, { key, body: { customerEmail: email } }),
        404,
        "not_found",
      );
      assert.equal((await customer(email)).loyaltyData.balance, 0);
    });

    test("token alias: { accessToken } by ?email=, expires_in 1 s to 7 days on both token routes", async () => {
      const email = newEmail("jc-token");
      assert.equal((await batch([users(email)])).status, 201);
      const q = (extra = "") => `${A()}/customers/token?email=${encodeURIComponent(email.toUpperCase())}${extra}`;
      const res = await call("GET", q());
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), ["accessToken"]);
      const token = claims(res.json.accessToken);
      assert.equal(token.exp - token.iat, 3600, "one hour by default");
      const me = await call("GET", `${A()}/me`, {
        key: null,
        headers: { authorization: `Bearer ${res.json.accessToken}` },
      });
      assert.equal(me.status, 200);
      assert.equal(me.json.email, email);

      const week = await call("GET", q(`&expires_in=${7 * DAY}`));
      assert.equal(week.status, 200);
      assert.equal(claims(week.json.accessToken).exp - claims(week.json.accessToken).iat, 7 * DAY);
      for (const bad of [String(7 * DAY + 1), "0", "-5", "1.5", "1e3", ""]) {
        const refused = await call("GET", q(`&expires_in=${bad}`));
        assertProblem(refused, 400, "validation_failed");
        assert.deepEqual(problemPaths(refused.json), ["expires_in"], bad);
      }
      assertProblem(await call("GET", `${A()}/customers/token`), 400, "validation_failed");
      assertProblem(
        await call("GET", `${A()}/customers/token?email=${encodeURIComponent(newEmail("jc-none"))}`),
        404,
        "customer_not_found",
      );

      const path = `${customerPath(app.programId, email)}/token`;
      const minute = await call("GET", `${path}?expires_in=60`);
      assert.equal(minute.status, 200);
      assert.equal(claims(minute.json.token).exp - claims(minute.json.token).iat, 60);
      assert.ok(Math.abs(Date.parse(minute.json.expiresAt) - Date.now() - 60_000) < 10_000, minute.json.expiresAt);
      const hour = claims((await call("GET", path)).json.token);
      assert.equal(hour.exp - hour.iat, 3600);
      assertProblem(await call("GET", `${path}?expires_in=${7 * DAY + 1}`), 400, "validation_failed");
    });

    test("execute alias: the same run, answering { pointsAwarded, remainingExecutions, recurrence }, caps included", async () => {
      const email = newEmail("jc-flow");
      assert.equal((await batch([users(email)])).status, 201);
      const execute = (
        flow: string,
        options: Omit<ApiOptions, "body"> = {},
        body: unknown = { customerEmail: email },
      ) => call("POST", `${A()}/custom-earning-flows/${flow}/execute`, { ...options, body });

      const once = await execute("welcome", { headers: { "idempotency-key": `jc-welcome-${email}` } });
      assert.equal(once.status, 200, once.text);
      assert.deepEqual(once.json, { pointsAwarded: 50, remainingExecutions: 0, recurrence: "once" });
      const replay = await execute("welcome", { headers: { "idempotency-key": `jc-welcome-${email}` } });
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(replay.json, once.json);
      assert.deepEqual((await execute("welcome")).json, {
        pointsAwarded: 0,
        remainingExecutions: 0,
        recurrence: "once",
      });

      // daily: 10 points, at most 25 a day (Bronze, ×1): 10, 10, then the 5 left.
      assert.deepEqual((await execute("daily")).json, {
        pointsAwarded: 10,
        remainingExecutions: 2,
        recurrence: "daily",
      });
      assert.deepEqual((await execute("daily")).json, {
        pointsAwarded: 10,
        remainingExecutions: 1,
        recurrence: "daily",
      });
      assert.deepEqual((await execute("daily")).json, {
        pointsAwarded: 5,
        remainingExecutions: 0,
        recurrence: "daily",
      });
      assert.deepEqual((await execute("daily")).json, {
        pointsAwarded: 0,
        remainingExecutions: 0,
        recurrence: "daily",
      });
      assert.deepEqual((await execute("visit", {}, { customerEmail: email, params: { store: 7 } })).json, {
        pointsAwarded: 10,
        remainingExecutions: null,
        recurrence: "unlimited",
      });
      const ledger = await entries(email);
      assert.deepEqual(
        ledger.map((e) => [e.type, e.points, e.source]),
        [
          ["earn", 10, "earning_flow"],
          ["earn", 5, "earning_flow"],
          ["earn", 10, "earning_flow"],
          ["earn", 10, "earning_flow"],
          ["earn", 50, "earning_flow"],
        ],
        "the replay wrote nothing",
      );
      assert.equal((await customer(email)).customerTier.currentTierPoints, 85, "flow points count towards tiers");

      assertProblem(await execute("nope"), 404, "earning_flow_not_found");
      assertProblem(await execute("visit", {}, { customerEmail: newEmail("jc-none") }), 404, "customer_not_found");
      const invalid = await execute("visit", {}, { customerEmail: "not-an-email", extra: 1 });
      assertProblem(invalid, 400, "validation_failed");
      assert.ok(problemPaths(invalid.json).includes("customerEmail"), invalid.text);
    });

    test("the import script loads a CSV through the batch endpoint, and a second run changes nothing", async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "jc-import-"));
      try {
        const [ana, ben, cleo] = [newEmail("jc-csv-ana"), newEmail("jc-csv-ben"), newEmail("jc-csv-cleo")];
        const file = path.join(dir, "customers.csv");
        writeFileSync(
          file,
          [
            "email,externalCustomerId,firstName,lastName,phone,emailVerified,loyaltyCustomerId,balance,memberSince,tierStatus",
            `${ana},crm-${ana},Ana,García,+34 600 123 456,true,jc-${ana},1250,2021-03-14T09:26:53.000Z,Silver`,
            `${ben},,Ben,Osei,,false,,0,2023-11-02,Bronze`,
            `${cleo},,"Cléo, Jr",Martin,,,,5400,2019-07-01T12:00:00+02:00,Gold`,
          ].join("\n"),
        );
        const importOnce = () =>
          run(
            process.execPath,
            [
              "--no-warnings",
              "--import",
              "tsx",
              "scripts/import-jericommerce.ts",
              "--file",
              file,
              "--program",
              app.programId,
              "--base-url",
              app.baseUrl,
              "--rows-per-batch",
              "2",
            ],
            { env: { ...process.env, LOYALTY_API_KEY: app.key } },
          );
        const first = await importOnce();
        const summary = JSON.parse(first.stdout.trim().split("\n").at(-1)!);
        assert.deepEqual([summary.rows, summary.imported, summary.batches], [3, 3, 2], first.stdout);
        assert.match(first.stderr, /batch 2: 3 rows imported/);
        const c = await customer(cleo);
        assert.equal(c.userData.firstName, "Cléo, Jr");
        assert.equal(c.loyaltyData.balance, 5400);
        assert.equal(c.customerTier.currentTier.name, "Gold");
        assert.equal(c.loyaltyData.memberSince, "2019-07-01T10:00:00.000Z");
        assert.equal((await customer(ana)).userData.phone, "+34 600 123 456");
        assert.equal((await entries(ben)).length, 0, "a zero opening balance writes no entry");

        // Again: the state file says every row is done.
        const second = JSON.parse((await importOnce()).stdout.trim().split("\n").at(-1)!);
        assert.deepEqual([second.imported, second.resumedAfter], [0, 3]);
        // Without the state file: the same batches (same Idempotency-Keys) are replayed; no second entry anywhere.
        rmSync(summary.state);
        const third = JSON.parse((await importOnce()).stdout.trim().split("\n").at(-1)!);
        assert.equal(third.imported, 3);
        assert.equal((await entries(cleo)).length, 1);
        assert.equal((await entries(ana)).length, 1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    // PostgreSQL only: on PGlite the CLI needs the app stopped and restarted (one process per directory), 15–40 s
    // for a statement the dashboard's card runs in e2e/migration.spec.ts; the domain function is the same.
    test(
      "revoking every token of the program (CLI revoke-tokens) makes old tokens 401; new ones work",
      { skip: backend === "pglite" },
      async () => {
        const email = newEmail("jc-revoke");
        assert.equal((await batch([users(email)])).status, 201);
        const old = (await call("GET", `${A()}/customers/token?email=${encodeURIComponent(email)}`)).json.accessToken;
        const me = (token: string) =>
          call("GET", `${A()}/me`, { key: null, headers: { authorization: `Bearer ${token}` } });
        assert.equal((await me(old)).status, 200);
        const revoked = await app.loyalty("revoke-tokens", "--program", app.programId);
        assert.match(String(revoked.revokedAt), /^\d{4}-/);
        assertProblem(await me(old), 401, "unauthorized");
        const fresh = (await call("GET", `${A()}/customers/token?email=${encodeURIComponent(email)}`)).json.accessToken;
        assert.equal((await me(fresh)).status, 200);
      },
    );
  });
}
