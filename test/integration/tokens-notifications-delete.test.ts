/**
 * Customer tokens and the /me routes, push notifications, and Delete resources (right to erasure), over HTTP
 * against the built app. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 *
 * Forged tokens (expired, wrong audience, another program's claim…) are signed with the program's own secret,
 * read from the database while the app is stopped (PGlite admits one process at a time).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SignJWT } from "jose";
import { BACKENDS, customerPath, openStack, type AppInstance, type Stack, type Fixtures } from "../support/stack";
import { newEmail, TWO_PROGRAMS } from "../support/fixtures";
import { assertCustomerShape, assertProblem, ISO_MS } from "../support/assertions";

const PUSH_URL = "http://127.0.0.1:9/push"; // never called here: the delivery worker is off in this file
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";
/** Program A allows SHOP_ORIGIN (and a local one); program B allows OTHER_ORIGIN only. */
const SHOP_ORIGIN = "https://shop.example.com";
const OTHER_ORIGIN = "https://other.example.com";

const decodePart = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));

interface Totals {
  entries: number;
  points: number;
  balances: number;
  redemptions: number;
  coupons: number;
}

for (const backend of BACKENDS) {
  describe(`Customer tokens, notifications and deletion [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    const files = mkdtempSync(path.join(os.tmpdir(), "loyalty-codes-"));
    const id = {} as Record<"coffee" | "foreignReward" | "pool" | "pushSecret", string>;
    const p = () => `/v1/programs/${stack.programId}`;
    const c = (email: string) => customerPath(stack.programId, email);
    const api = (...args: Parameters<AppInstance["api"]>) => app.api(...args);
    const bearer = (token: string) => ({ key: null, headers: { Authorization: `Bearer ${token}` } });

    async function customer(label: string, points = 0, payload: Record<string, unknown> = {}): Promise<string> {
      const email = newEmail(label);
      assert.equal(
        (await api("POST", `${p()}/integrations/api`, { body: [{ email, feature: "user", payload }] })).status,
        201,
      );
      if (points > 0)
        assert.equal((await api("POST", `${c(email)}/balance/increase`, { body: { points } })).status, 200);
      return email;
    }
    const tokenOf = async (email: string) => {
      const res = await api("GET", `${c(email)}/token`);
      assert.equal(res.status, 200, res.text);
      return res.json.token as string;
    };

    // Shared by the tests below, in order.
    let holder: string; // has a token, redeems through /me
    let holderId: string;
    let gone: string; // erased by Delete resources
    let goneId: string;
    let goneToken: string;
    let twin: string; // same e-mail as `gone`, in program B
    let stays: string;
    let forged: Record<string, string> = {};
    let totalsBefore: Totals;
    let notificationsQueued = 0;

    const totals = async (): Promise<Totals> => {
      const [row] = await stack.query<Totals>(
        `SELECT (SELECT count(*)::int FROM "LedgerEntry" WHERE "programId" = $1) AS entries,
                (SELECT coalesce(sum(points), 0)::int FROM "LedgerEntry" WHERE "programId" = $1) AS points,
                (SELECT coalesce(sum(l.balance), 0)::int FROM "LoyaltyData" l JOIN "Customer" c ON c.id = l."customerId" WHERE c."programId" = $1) AS balances,
                (SELECT count(*)::int FROM "Redemption" WHERE "programId" = $1) AS redemptions,
                (SELECT count(*)::int FROM "Coupon" WHERE "poolId" = $2 AND "customerId" IS NOT NULL) AS coupons`,
        [stack.programId, id.pool],
      );
      return row!;
    };

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      const A = stack.programId;
      const csv = path.join(files, "codes.csv");
      writeFileSync(csv, "code\nDEL-1\nDEL-2\nDEL-3\n");
      // CORS (lib/api/cors.ts): a refused list changes nothing; the accepted one is stored as browsers send origins.
      const refusedOrigins = await stack.cliRun([
        "program",
        "update",
        "--id",
        A,
        "--allowed-origins",
        "https://a.example/path",
      ]);
      assert.equal(refusedOrigins.code, 1, refusedOrigins.stdout);
      const [coffee, foreign, pool, , push, , updated] = await stack.together(
        () => stack.loyalty("reward", "create", "--program", A, "--name", "Coffee", "--cost-points", "30"),
        () => stack.loyalty("reward", "create", "--program", stack.otherProgramId, "--name", "B", "--cost-points", "1"),
        () => stack.loyalty("coupon-pool", "create", "--program", A, "--name", "Pool"),
        () => stack.loyalty("earning-flow", "create", "--program", A, "--key", "visit", "--points", "10"),
        () => stack.loyalty("push-endpoint", "set", "--program", A, "--url", PUSH_URL),
        () => stack.loyalty("program", "update", "--id", stack.otherProgramId, "--allowed-origins", OTHER_ORIGIN),
        () =>
          stack.loyalty(
            "program",
            "update",
            "--id",
            A,
            "--allowed-origins",
            `${SHOP_ORIGIN.toUpperCase()}/,http://localhost:5173`,
          ),
      );
      assert.deepEqual(updated!.allowedOrigins, [SHOP_ORIGIN, "http://localhost:5173"]);
      id.coffee = String(coffee!.rewardId);
      id.foreignReward = String(foreign!.rewardId);
      id.pool = String(pool!.couponPoolId);
      await stack.loyalty("coupon-pool", "import", "--pool", id.pool, "--file", csv);
      assert.match(String(push!.secret), /^whsec_[0-9a-f]{48}$/, "the signing secret is shown once");
      id.pushSecret = String(push!.secret);
      app = await stack.start();
    });
    after(async () => {
      await stack?.close();
      rmSync(files, { recursive: true, force: true });
    });

    test("GET /customers/{email}/token: an HS256 JWT for that customer and program, valid one hour", async () => {
      holder = await customer("holder", 200, { firstName: "Hold", lastName: "Er" });
      holderId = (await api("GET", c(holder))).json.id;
      const res = await api("GET", `${c(holder)}/token`);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.json).sort(), ["expiresAt", "token"]);
      assert.match(res.json.expiresAt, ISO_MS);
      const [header, payload, signature] = res.json.token.split(".");
      assert.ok(signature, "three parts");
      assert.equal(decodePart(header).alg, "HS256");
      const claims = decodePart(payload);
      assert.equal(claims.sub, holderId);
      assert.equal(claims.exp - claims.iat, 3600);
      assert.equal(claims.exp * 1000, Date.parse(res.json.expiresAt));
      assert.ok(Math.abs(claims.iat * 1000 - Date.now()) < 60_000);
      assert.ok(!JSON.stringify(claims).includes(holder), "the e-mail is not in the token");

      assertProblem(await api("GET", `${c(newEmail("nobody"))}/token`), 404, "customer_not_found");
      assertProblem(await api("GET", `${c(holder)}/token`, { key: null }), 401, "unauthorized");
      assertProblem(await api("GET", `${c(holder)}/token`, { key: stack.otherKey }), 404, "not_found");
      // A customer token is never accepted on integrator routes.
      assertProblem(await api("GET", c(holder), bearer(res.json.token)), 401, "unauthorized");
      assertProblem(await api("GET", `${c(holder)}/token`, bearer(res.json.token)), 401, "unauthorized");
    });

    test("GET /me and /me/transactions with the Bearer token: the same JSON as the integrator reads", async () => {
      const token = await tokenOf(holder);
      const me = await api("GET", `${p()}/me`, bearer(token));
      assert.equal(me.status, 200, me.text);
      assertCustomerShape(me.json);
      assert.deepEqual(me.json, (await api("GET", c(holder))).json);
      assert.ok(me.headers.get("x-request-id"));

      await api("POST", `${c(holder)}/balance/decrease`, { body: { points: 5, reason: "test" } });
      const mine = await api("GET", `${p()}/me/transactions`, bearer(token));
      assert.equal(mine.status, 200);
      assert.deepEqual(mine.json, (await api("GET", `${c(holder)}/transactions`)).json);
      assert.deepEqual(
        mine.json.data.map((e: { type: string; points: number }) => [e.type, e.points]),
        [
          ["spend", -5],
          ["earn", 200],
        ],
      );
      const page = await api("GET", `${p()}/me/transactions?limit=1`, bearer(token));
      assert.equal(page.json.data.length, 1);
      assert.equal(typeof page.json.nextCursor, "string");
      const next = await api(
        "GET",
        `${p()}/me/transactions?limit=1&cursor=${encodeURIComponent(page.json.nextCursor)}`,
        bearer(token),
      );
      assert.deepEqual(next.json.data, [mine.json.data[1]]);
      assertProblem(await api("GET", `${p()}/me/transactions?limit=0`, bearer(token)), 400, "validation_failed");
    });

    test("POST /me/rewards/{id}/redeem: the token's customer redeems; recorded as customer:<id>", async () => {
      const token = await tokenOf(holder);
      const res = await api("POST", `${p()}/me/rewards/${id.coffee}/redeem`, {
        ...bearer(token),
        body: { metadata: { via: "widget" } },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.balance, 165);
      assert.equal(res.json.redemption.customerId, holderId);
      const [entry] = (await api("GET", `${c(holder)}/transactions?limit=1`)).json.data;
      assert.deepEqual(
        { type: entry.type, points: entry.points, actor: entry.actor },
        { type: "redeem", points: -30, actor: `customer:${holderId}` },
      );

      const idem = { Authorization: `Bearer ${token}`, "Idempotency-Key": "me-redeem-1" };
      const first = await api("POST", `${p()}/me/rewards/${id.coffee}/redeem`, { key: null, headers: idem });
      assert.equal(first.status, 201, "no body at all is allowed");
      const replay = await api("POST", `${p()}/me/rewards/${id.coffee}/redeem`, { key: null, headers: idem });
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(replay.json, first.json);
      assert.equal((await api("GET", c(holder))).json.loyaltyData.balance, 135);

      assertProblem(
        await api("POST", `${p()}/me/rewards/${id.foreignReward}/redeem`, { ...bearer(token), body: {} }),
        404,
        "reward_not_found",
      );
      const poor = await customer("poor-me", 10);
      assertProblem(
        await api("POST", `${p()}/me/rewards/${id.coffee}/redeem`, { ...bearer(await tokenOf(poor)), body: {} }),
        409,
        "insufficient_balance",
      );
      assertProblem(
        await api("POST", `${p()}/me/rewards/${id.coffee}/redeem`, { ...bearer(token), body: { points: 1 } }),
        400,
        "validation_failed",
      );
    });

    test("/me refuses (401) no token, an api-key, a bad signature, another program, garbage", async () => {
      const token = await tokenOf(holder);
      const refused = async (path: string, opts: Parameters<AppInstance["api"]>[2], method = "GET") =>
        assertProblem(
          await api(method, path, { body: method === "POST" ? {} : undefined, ...opts }),
          401,
          "unauthorized",
        );
      for (const path of [`${p()}/me`, `${p()}/me/transactions`]) {
        await refused(path, { key: null });
        await refused(path, { key: stack.key }); // an api-key is never accepted on /me
        await refused(path, { key: stack.key, headers: { Authorization: `Bearer ${token}` } });
        await refused(path, { key: null, headers: { Authorization: token } }); // no scheme
        await refused(path, { key: null, headers: { Authorization: `Basic ${token}` } });
        await refused(path, bearer("not.a.token"));
        const [h, pl, sig] = token.split(".");
        const flipped = sig!.startsWith("A") ? `B${sig!.slice(1)}` : `A${sig!.slice(1)}`;
        await refused(path, bearer(`${h}.${pl}.${flipped}`));
        // The payload of another customer under this signature.
        const other = Buffer.from(JSON.stringify({ ...decodePart(pl!), sub: UNKNOWN_ID })).toString("base64url");
        await refused(path, bearer(`${h}.${other}.${sig}`));
        await refused(path, bearer(`eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.${pl}.`)); // alg: none
      }
      await refused(`${p()}/me/rewards/${id.coffee}/redeem`, { key: stack.key }, "POST");
      await refused(`${p()}/me/rewards/${id.coffee}/redeem`, bearer("x"), "POST");
      // Program A's token on program B's path, and on a program that does not exist.
      await refused(`/v1/programs/${stack.otherProgramId}/me`, bearer(token));
      await refused(`/v1/programs/${UNKNOWN_ID}/me`, bearer(token));
      assertProblem(await api("GET", `/v1/programs/not-a-program/me`, bearer(token)), 404, "not_found");
    });

    test("CORS: /me answers a preflight and the request for the program's allowed origins only; api-key routes never", async () => {
      const token = await tokenOf(holder);
      const preflight = (path: string, origin: string, method = "GET") =>
        api("OPTIONS", path, {
          key: null,
          headers: {
            Origin: origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "authorization,content-type,idempotency-key",
          },
        });
      const allowed = (res: Awaited<ReturnType<typeof api>>, origin: string) => {
        assert.equal(res.headers.get("access-control-allow-origin"), origin);
        assert.match(res.headers.get("vary") ?? "", /\bOrigin\b/);
      };
      const none = (res: Awaited<ReturnType<typeof api>>, what: string) => {
        for (const h of ["allow-origin", "allow-methods", "allow-headers", "allow-credentials", "expose-headers"])
          assert.equal(res.headers.get(`access-control-${h}`), null, `${what}: no access-control-${h}`);
      };

      // The preflight: the exact origin, the route's methods, the three request headers.
      for (const [path, method] of [
        [`${p()}/me`, "GET"],
        [`${p()}/me/balance`, "GET"],
        [`${p()}/me/transactions`, "GET"],
        [`${p()}/me/rewards/${id.coffee}/redeem`, "POST"],
        [`/v1/programs/${stack.programId.toUpperCase()}/me`, "GET"],
      ] as const) {
        const res = await preflight(path, SHOP_ORIGIN, method);
        assert.equal(res.status, 204, `${path}: ${res.text}`);
        allowed(res, SHOP_ORIGIN);
        assert.match(res.headers.get("access-control-allow-methods") ?? "", new RegExp(`\\b${method}\\b`));
        const headers = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
        for (const h of ["authorization", "content-type", "idempotency-key"]) assert.ok(headers.includes(h), h);
        assert.match(res.headers.get("allow") ?? "", /OPTIONS/);
        assert.ok(Number(res.headers.get("access-control-max-age")) > 0);
      }
      allowed(await preflight(`${p()}/me`, "http://localhost:5173"), "http://localhost:5173");
      // Another origin, a look-alike, another program's origin, a method the route does not serve: no CORS headers.
      for (const [path, origin, method] of [
        [`${p()}/me`, "https://evil.example", "GET"],
        [`${p()}/me`, "https://shop.example.com.evil.example", "GET"],
        [`${p()}/me`, "http://shop.example.com", "GET"],
        [`${p()}/me`, OTHER_ORIGIN, "GET"],
        [`/v1/programs/${stack.otherProgramId}/me`, SHOP_ORIGIN, "GET"],
        [`/v1/programs/${UNKNOWN_ID}/me`, SHOP_ORIGIN, "GET"],
        [`${p()}/me`, SHOP_ORIGIN, "DELETE"],
        [`${p()}/me`, "null", "GET"],
      ] as const) {
        const res = await preflight(path, origin, method);
        assert.equal(res.status, 204);
        none(res, `${origin} ${method} ${path}`);
      }
      allowed(await preflight(`/v1/programs/${stack.otherProgramId}/me`, OTHER_ORIGIN), OTHER_ORIGIN);

      // The request itself: the allowed origin can read the answer, a refusal included; another origin cannot.
      const me = await api("GET", `${p()}/me`, {
        ...bearer(token),
        headers: { ...bearer(token).headers, Origin: SHOP_ORIGIN },
      });
      assert.equal(me.status, 200, me.text);
      allowed(me, SHOP_ORIGIN);
      assert.match(me.headers.get("access-control-expose-headers") ?? "", /x-request-id/i);
      assert.equal(me.headers.get("access-control-allow-credentials"), null, "no cookies are ever involved");
      const refusedMe = await api("GET", `${p()}/me`, { key: null, headers: { Origin: SHOP_ORIGIN } });
      assertProblem(refusedMe, 401, "unauthorized");
      allowed(refusedMe, SHOP_ORIGIN);
      const evil = await api("GET", `${p()}/me`, {
        ...bearer(token),
        headers: { ...bearer(token).headers, Origin: "https://evil.example" },
      });
      assert.equal(evil.status, 200, "the server answers; the browser withholds it from the page");
      none(evil, "another origin");
      assert.match(evil.headers.get("vary") ?? "", /\bOrigin\b/);
      const plain = await api("GET", `${p()}/me`, bearer(token));
      none(plain, "no Origin");

      // api-key routes never answer CORS, whatever the origin: a browser must never hold an API key.
      for (const path of [c(holder), `${p()}/tiers`, `${p()}/integrations/api`, `${c(holder)}/token`]) {
        const pre = await preflight(path, SHOP_ORIGIN, path.endsWith("/api") ? "POST" : "GET");
        assert.equal(pre.status, 204);
        none(pre, `preflight ${path}`);
      }
      const read = await api("GET", c(holder), { headers: { Origin: SHOP_ORIGIN } });
      assert.equal(read.status, 200);
      none(read, "an api-key read");
      const write = await api("POST", `${c(holder)}/balance/decrease`, {
        body: { points: 1_000_000_000 },
        headers: { Origin: SHOP_ORIGIN },
      });
      assertProblem(write, 409, "insufficient_balance"); // (writes nothing)
      none(write, "an api-key write");
    });

    test("notifications: 202 queued, or suppressed by the customer's category flag; validation; 404", async () => {
      const email = await customer("push");
      const path = `${c(email)}/notifications`;
      const queued = await api("POST", path, {
        body: { title: "Points!", body: "You earned 10 points", category: "balance", data: { screen: "wallet" } },
      });
      assert.equal(queued.status, 202, queued.text);
      assert.deepEqual(Object.keys(queued.json), ["notification"]);
      assert.deepEqual(Object.keys(queued.json.notification).sort(), ["id", "status"]);
      assert.equal(queued.json.notification.status, "queued");
      notificationsQueued++;
      // Every category whose flag is on by default is queued; marketing is off by default.
      for (const category of ["tier", "rewardAvailable", "location"]) {
        const res = await api("POST", path, { body: { title: "T", body: "B", category } });
        assert.equal(res.json.notification.status, "queued", category);
        notificationsQueued++;
      }
      const suppressed = await api("POST", path, { body: { title: "Sale", body: "50% off", category: "marketing" } });
      assert.equal(suppressed.status, 202);
      assert.equal(suppressed.json.notification.status, "suppressed");

      const headers = { "Idempotency-Key": `push-${email}` };
      const once = await api("POST", path, { body: { title: "Once", body: "B", category: "balance" }, headers });
      notificationsQueued++;
      const twice = await api("POST", path, { body: { title: "Once", body: "B", category: "balance" }, headers });
      assert.equal(twice.headers.get("idempotent-replayed"), "true");
      assert.equal(twice.json.notification.id, once.json.notification.id);

      const bad = assertProblem(
        await api("POST", path, { body: { title: "", body: "x".repeat(1001), category: "sms", data: "no", extra: 1 } }),
        400,
        "validation_failed",
      );
      assert.deepEqual(bad.errors.map((e: { path: string }) => e.path).sort(), [
        "",
        "body",
        "category",
        "data",
        "title",
      ]);
      const missing = assertProblem(await api("POST", path, { body: {} }), 400, "validation_failed");
      assert.deepEqual(missing.errors.map((e: { path: string }) => e.path).sort(), ["body", "category", "title"]);
      assertProblem(
        await api("POST", path, { body: { title: "x".repeat(121), body: "b", category: "tier" } }),
        400,
        "validation_failed",
      );
      for (const body of [
        { title: "a\u0000", body: "b", category: "tier" },
        { title: "a", body: "\udc00", category: "tier" },
        { title: "a", body: "b", category: "tier", data: { k: "\u0000" } },
      ]) {
        assertProblem(await api("POST", path, { body }), 400, "validation_failed"); // not a 500 from the database
      }
      assertProblem(
        await api("POST", `${c(newEmail("ghost"))}/notifications`, {
          body: { title: "T", body: "B", category: "tier" },
        }),
        404,
        "customer_not_found",
      );
      assertProblem(
        await api("POST", path, { key: null, body: { title: "T", body: "B", category: "tier" } }),
        401,
        "unauthorized",
      );
    });

    test("set up the customer to erase: history, a redemption, a coupon, a queued push, a token", async () => {
      gone = await customer("gone", 300, {
        firstName: "Erase",
        lastName: "Me",
        phone: "+33 6 12 34 56 78",
        externalCustomerId: `ext-${Date.now()}`,
      });
      goneId = (await api("GET", c(gone))).json.id;
      assert.equal((await api("POST", `${c(gone)}/balance/decrease`, { body: { points: 50 } })).status, 200);
      assert.equal((await api("POST", `${c(gone)}/rewards/${id.coffee}/redeem`, { body: {} })).status, 201);
      assert.equal((await api("POST", `${c(gone)}/coupons`, { body: { couponPoolId: id.pool } })).status, 201);
      assert.equal((await api("POST", `${c(gone)}/earning-flows/visit`, { body: {} })).status, 200);
      assert.equal(
        (
          await api("POST", `${c(gone)}/notifications`, {
            body: { title: "Hi Erase", body: "private", category: "balance" },
          })
        ).json.notification.status,
        "queued",
      );
      goneToken = await tokenOf(gone);
      assert.equal((await api("GET", `${p()}/me`, bearer(goneToken))).status, 200);
      // The same e-mail in program B is another customer, untouched by program A's deletion.
      twin = gone;
      assert.equal(
        (
          await api("POST", `/v1/programs/${stack.otherProgramId}/integrations/api`, {
            key: stack.otherKey,
            body: [{ email: twin, feature: "user", payload: { firstName: "Twin" } }],
          })
        ).status,
        201,
      );
      stays = await customer("stays", 40);
    });

    test("with the app stopped: program totals before, and tokens forged with the program's secret", async () => {
      await stack.stopAll();
      totalsBefore = await totals();
      const [program] = await stack.query<{ tokenSecret: string }>(
        `SELECT "tokenSecret" FROM "Program" WHERE id = $1`,
        [stack.programId],
      );
      assert.match(program!.tokenSecret, /^[0-9a-f]{64}$/, "32 random bytes, hex, made on first use");
      const [other] = await stack.query<{ id: string }>(`SELECT id FROM "Customer" WHERE "programId" = $1`, [
        stack.otherProgramId,
      ]);
      const key = Buffer.from(program!.tokenSecret, "hex");
      const now = Math.floor(Date.now() / 1000);
      const sign = (claims: Record<string, unknown>, sub: string, aud: string, iat: number, exp: number) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .setSubject(sub)
          .setAudience(aud)
          .setIssuedAt(iat)
          .setExpirationTime(exp)
          .sign(key);
      forged = {
        valid: await sign({ pid: stack.programId }, holderId, "loyalty:me", now, now + 600),
        expired: await sign({ pid: stack.programId }, holderId, "loyalty:me", now - 7200, now - 3600),
        wrongAudience: await sign({ pid: stack.programId }, holderId, "someone-else", now, now + 600),
        otherProgramClaim: await sign({ pid: stack.otherProgramId }, holderId, "loyalty:me", now, now + 600),
        otherProgramCustomer: await sign({ pid: stack.programId }, other!.id, "loyalty:me", now, now + 600),
        noSubject: await new SignJWT({ pid: stack.programId })
          .setProtectedHeader({ alg: "HS256" })
          .setAudience("loyalty:me")
          .setIssuedAt(now)
          .setExpirationTime(now + 600)
          .sign(key),
      };
      app = await stack.start();
    });

    test("forged tokens: the control passes; expired, wrong audience, other program or customer are 401", async () => {
      assert.equal(
        (await api("GET", `${p()}/me`, bearer(forged.valid!))).json.id,
        holderId,
        "the control token (same secret) works",
      );
      for (const name of ["expired", "wrongAudience", "otherProgramClaim", "otherProgramCustomer", "noSubject"]) {
        const res = await api("GET", `${p()}/me`, bearer(forged[name]!));
        assertProblem(res, 401, "unauthorized");
      }
    });

    test("DELETE /integrations/api: 204, the customer is gone from every read, the token stops working", async () => {
      const del = await api("DELETE", `${p()}/integrations/api`, {
        body: [
          { email: `  ${gone.toUpperCase()} `, feature: "user" }, // trimmed, case-insensitive
          { email: newEmail("never-existed"), feature: "user" }, // ignored
        ],
      });
      assert.equal(del.status, 204, del.text);
      assert.equal(del.text, "");
      assert.ok(del.headers.get("x-request-id"));

      const enc = c(gone);
      assertProblem(await api("GET", enc), 404, "customer_not_found");
      assertProblem(await api("GET", `${enc}/transactions`), 404, "customer_not_found");
      assertProblem(await api("GET", `${enc}/token`), 404, "customer_not_found");
      assertProblem(await api("POST", `${enc}/balance/increase`, { body: { points: 1 } }), 404, "customer_not_found");
      assertProblem(await api("POST", `${enc}/balance/decrease`, { body: { points: 1 } }), 404, "customer_not_found");
      assertProblem(await api("POST", `${enc}/rewards/${id.coffee}/redeem`, { body: {} }), 404, "customer_not_found");
      assertProblem(
        await api("POST", `${enc}/coupons`, { body: { couponPoolId: id.pool } }),
        404,
        "customer_not_found",
      );
      assertProblem(
        await api("POST", `${enc}/notifications`, { body: { title: "T", body: "B", category: "tier" } }),
        404,
        "customer_not_found",
      );
      assertProblem(await api("POST", `${enc}/earning-flows/visit`, { body: {} }), 404, "customer_not_found");
      assertProblem(await api("GET", `${p()}/me`, bearer(goneToken)), 401, "unauthorized");
      assertProblem(await api("GET", `${p()}/me/transactions`, bearer(goneToken)), 401, "unauthorized");
      assertProblem(
        await api("POST", `${p()}/me/rewards/${id.coffee}/redeem`, { ...bearer(goneToken), body: {} }),
        401,
        "unauthorized",
      );

      // Others are untouched: a customer of A, and the same e-mail in program B.
      assert.equal((await api("GET", c(stays))).json.loyaltyData.balance, 40);
      const inB = await api("GET", customerPath(stack.otherProgramId, twin), { key: stack.otherKey });
      assert.equal(inB.status, 200);
      assert.equal(inB.json.userData.firstName, "Twin");

      // Idempotent: again, and unknown e-mails, are 204 with nothing to do.
      assert.equal(
        (await api("DELETE", `${p()}/integrations/api`, { body: [{ email: gone, feature: "user" }] })).status,
        204,
      );
    });

    test("DELETE refusals: 400 validation_failed / unsupported_feature, 415, 401, 404 for another program", async () => {
      const path = `${p()}/integrations/api`;
      assertProblem(await api("DELETE", path, { body: [] }), 400, "validation_failed");
      const bad = assertProblem(
        await api("DELETE", path, {
          body: [
            { email: "nope", feature: "user" },
            { email: stays, feature: "user", payload: {} },
          ],
        }),
        400,
        "validation_failed",
      );
      assert.deepEqual(bad.errors.map((e: { path: string }) => e.path).sort(), ["[0].email", "[1]"]);
      const feature = assertProblem(
        await api("DELETE", path, { body: [{ email: stays, feature: "coupon" }] }),
        400,
        "unsupported_feature",
      );
      assert.deepEqual(
        feature.errors.map((e: { path: string }) => e.path),
        ["[0].feature"],
      );
      assertProblem(await api("DELETE", path, { body: { email: stays, feature: "user" } }), 400, "validation_failed");
      assertProblem(
        await api("DELETE", path, { body: Array.from({ length: 1001 }, () => ({ email: stays, feature: "user" })) }),
        400,
        "validation_failed",
      );
      assertProblem(
        await api("DELETE", path, { body: "[]", headers: { "content-type": "text/plain" } }),
        415,
        "unsupported_media_type",
      );
      assertProblem(
        await api("DELETE", path, { key: null, body: [{ email: stays, feature: "user" }] }),
        401,
        "unauthorized",
      );
      assertProblem(
        await api("DELETE", path, { key: stack.otherKey, body: [{ email: stays, feature: "user" }] }),
        404,
        "not_found",
      );
      assert.equal((await api("GET", c(stays))).status, 200, "nothing was deleted by a refused request");
    });

    test("the e-mail is free again: a new customer, not the old one back", async () => {
      assert.equal(
        (await api("POST", `${p()}/integrations/api`, { body: [{ email: gone, feature: "user", payload: {} }] }))
          .status,
        201,
      );
      const reborn = (await api("GET", c(gone))).json;
      assert.notEqual(reborn.id, goneId);
      assert.equal(reborn.loyaltyData.balance, 0);
      assert.equal(reborn.userData.firstName, null);
      assert.deepEqual((await api("GET", `${c(gone)}/transactions`)).json.data, []);
      // Put things back as they were for the totals check: delete the newcomer too.
      assert.equal(
        (await api("DELETE", `${p()}/integrations/api`, { body: [{ email: gone, feature: "user" }] })).status,
        204,
      );
    });

    test("the database: personal data erased, ledger and redemptions kept, program totals unchanged", async () => {
      await stack.stopAll();
      const after = await totals();
      assert.deepEqual(after, totalsBefore, "entries, points, balances, redemptions and coupons are unchanged");

      const [row] = await stack.query<Record<string, unknown>>(
        `SELECT c.email, c."deletedAt" IS NOT NULL AS deleted, c.referral, c."utmCampaign", c."utmSource", c."utmMedium", c.language,
                u."firstName", u."lastName", u.phone, u.birthdate, u."externalCustomerId",
                (SELECT count(*)::int FROM "LedgerEntry" WHERE "customerId" = c.id) AS entries,
                (SELECT count(*)::int FROM "Redemption" WHERE "customerId" = c.id) AS redemptions,
                (SELECT count(*)::int FROM "Coupon" WHERE "customerId" = c.id) AS coupons,
                l.balance
         FROM "Customer" c JOIN "UserData" u ON u."customerId" = c.id JOIN "LoyaltyData" l ON l."customerId" = c.id WHERE c.id = $1`,
        [goneId],
      );
      assert.deepEqual(row, {
        email: null,
        deleted: true,
        referral: null,
        utmCampaign: null,
        utmSource: null,
        utmMedium: null,
        language: null,
        firstName: null,
        lastName: null,
        phone: null,
        birthdate: null,
        externalCustomerId: null,
        entries: 4, // earn 300, spend 50, redeem 30, earning flow +10 (and nothing since)
        redemptions: 1,
        coupons: 1,
        balance: 230,
      });

      // Its queued push was cancelled and blanked, its undelivered push delivery cancelled.
      const pushes = await stack.query<{ status: string; title: string; body: string; delivery: string }>(
        `SELECT n.status, n.title, n.body, d.status AS delivery FROM "Notification" n JOIN "Delivery" d ON d."notificationId" = n.id WHERE n."customerId" = $1`,
        [goneId],
      );
      assert.deepEqual(pushes, [{ status: "cancelled", title: "", body: "", delivery: "cancelled" }]);

      // One customer.deleted event each for the two deletions; the e-mail is nowhere in the stored events.
      const events = await stack.query<{ type: string; data: { customerId: string } }>(
        `SELECT type, data FROM "Event" WHERE "programId" = $1 AND type = 'customer.deleted' ORDER BY "createdAt"`,
        [stack.programId],
      );
      assert.equal(events.length, 2);
      assert.equal(events[0]!.data.customerId, goneId);
      const leaks = await stack.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "Event" WHERE "programId" = $1 AND data::text ILIKE $2`,
        [stack.programId, `%${gone.split("@")[0]}%`],
      );
      assert.equal(leaks[0]!.n, 0, "no stored event still carries the erased e-mail");

      // Notifications of the live customers: queued with a push delivery to the endpoint, suppressed without.
      const [n] = await stack.query<{ queued: number; suppressed: number; deliveries: number; requested: number }>(
        `SELECT (SELECT count(*)::int FROM "Notification" WHERE "programId" = $1 AND status = 'queued') AS queued,
                (SELECT count(*)::int FROM "Notification" WHERE "programId" = $1 AND status = 'suppressed') AS suppressed,
                (SELECT count(*)::int FROM "Delivery" WHERE "programId" = $1 AND kind = 'push' AND status = 'pending' AND url = $2) AS deliveries,
                (SELECT count(*)::int FROM "Event" WHERE "programId" = $1 AND type = 'notification.requested') AS requested`,
        [stack.programId, PUSH_URL],
      );
      assert.deepEqual(n, {
        queued: notificationsQueued,
        suppressed: 1,
        deliveries: notificationsQueued,
        requested: notificationsQueued + 1,
      });
    });
  });
}
