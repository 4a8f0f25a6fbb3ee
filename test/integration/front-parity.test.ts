/**
 * The production front (server/front.ts, what `npm start` runs) and plain `next start` answer /v1 alike (issue 13):
 * the same requests go to both, on one PostgreSQL database, and their status, the headers that matter and their
 * bodies are compared. Covered: every /v1 route file and method, unknown paths, a trailing slash, 405 with Allow, HEAD,
 * OPTIONS, TRACE (on /v1 and on a page), malformed percent-encoding, an encoded `+`/`@` in a path parameter, an
 * oversized body, a wrong content-type, bad JSON, a bad query, idempotent replay, a caller's x-request-id, HSTS behind
 * an https proxy, and a dashboard page (status and type: Next serves it in both).
 *
 * Ignored on purpose: request ids the servers generate, timestamps, ids, tokens, cursors, page nonces (normalised), the
 * numbers in the rate-limit headers (both servers draw from the same buckets, one after the other; their presence and
 * the policy are compared), Date/Connection/Keep-Alive/Content-Length/Transfer-Encoding (framing) and Vary.
 * Writes act on a customer of each server's own (`front-…` / `next-…`), normalised to `<who>`.
 *
 * PostgreSQL only: two processes cannot open one PGlite directory.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import SECURITY_HEADERS from "../../lib/security-headers.json" with { type: "json" };
import { openStack, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { POINTS } from "../support/fixtures";

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request as sent, byte for byte (no fetch normalisation: malformed paths and TRACE must go out as written). */
function send(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<Raw> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path, headers: options.headers, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

const EXACT_HEADERS = [
  "content-type",
  "allow",
  "cache-control",
  "location",
  "idempotent-replayed",
  "ratelimit-limit",
  "ratelimit-policy",
  ...Object.keys({ ...SECURITY_HEADERS.everyAnswer, ...SECURITY_HEADERS.json, ...SECURITY_HEADERS.https }).map((k) =>
    k.toLowerCase(),
  ),
];
/** Compared by presence: their values depend on the order the two servers drew from one bucket. */
const PRESENT_HEADERS = ["ratelimit-remaining", "ratelimit-reset", "ratelimit", "retry-after", "x-request-id"];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const JWT = /eyJ[\w-]+\.[\w-]+\.[\w-]+/g;

/** A body with what legitimately differs between the two runs replaced. */
function normalise(body: string, base: string): string {
  return body
    .replaceAll(base, "<base>")
    .replace(JWT, "<jwt>")
    .replace(UUID, "<uuid>")
    .replace(ISO, "<ts>")
    .replace(/\b[0-9a-f]{32}\b/g, "<hex>")
    .replace(/"nextCursor":"[\w-]+"/g, '"nextCursor":"<cursor>"')
    .replace(/'nonce-[^']+'/g, "'nonce-<nonce>'")
    .replace(/\b(front|next)\b/g, "<who>");
}

/** The comparable parts of an answer. */
function shape(r: Raw, base: string, sentRequestId: boolean) {
  const headers: Record<string, unknown> = {};
  for (const name of EXACT_HEADERS) {
    const value = r.headers[name];
    headers[name] = typeof value === "string" ? normalise(value, base) : value;
  }
  for (const name of PRESENT_HEADERS) headers[name] = r.headers[name] !== undefined;
  if (sentRequestId) headers["x-request-id"] = r.headers["x-request-id"];
  const type = String(r.headers["content-type"] ?? "");
  // Pages carry a per-request nonce and build ids: their status and type are what the front must not change.
  const body = type.includes("json") || type.includes("text/plain") ? normalise(r.body, base) : `<${type}>`;
  return { status: r.status, headers, body };
}

describe(
  "The production front answers /v1 exactly as next start does [postgres]",
  { skip: !process.env.TEST_DATABASE_URL },
  () => {
    let stack: Stack<Fixtures<typeof POINTS>>;
    let front: AppInstance;
    let next: AppInstance;
    before(async () => {
      stack = await openStack("postgres", POINTS);
      [front, next] = await Promise.all([stack.start(), stack.start({}, "next")]);
    });
    after(async () => {
      await stack?.close();
    });

    /** Sends the request to both (front first), with `<who>` in the path, headers and body replaced by the server's label. */
    async function both(
      label: string,
      method: string,
      path: string,
      options: { headers?: Record<string, string>; body?: string; key?: string | null } = {},
    ) {
      const out = [];
      for (const [who, app] of [
        ["front", front],
        ["next", next],
      ] as const) {
        const headers = Object.fromEntries(
          Object.entries(options.headers ?? {}).map(([k, v]) => [k, v.replaceAll("<who>", who)]),
        );
        const key = options.key === undefined ? stack.key : options.key;
        if (key) headers["api-key"] = key;
        const r = await send(app.baseUrl, method, path.replaceAll("<who>", who), {
          headers,
          body: options.body?.replaceAll("<who>", who),
        });
        out.push(shape(r, app.baseUrl, /^[\w.:-]{1,128}$/.test(headers["x-request-id"] ?? "")));
      }
      assert.deepEqual(out[0], out[1], `${label}: ${method} ${path}`);
      return out[0]!;
    }

    const json = { "content-type": "application/json" };
    const p = () => `/v1/programs/${stack.programId}`;
    const customer = (email = "<who>-1@example.com") =>
      `${p()}/customers/${encodeURIComponent(email).replaceAll("%3Cwho%3E", "<who>")}`;

    test("every route file and method, with its success and its refusals", async () => {
      const created = await both("create customers", "POST", `${p()}/integrations/api`, {
        headers: json,
        body: JSON.stringify([
          { email: "<who>-1@example.com", feature: "user", payload: { firstName: "Ada" } },
          { email: "<who>+plus@example.com", feature: "user", payload: {} },
        ]),
      });
      assert.equal(created.status, 201);
      assert.equal((await both("read", "GET", customer())).status, 200);
      assert.equal((await both("plus and at encoded", "GET", customer("<who>+plus@example.com"))).status, 200);
      await both("plus raw, at encoded", "GET", `${p()}/customers/<who>+plus%40example.com`);
      await both("unknown customer", "GET", customer("nobody@example.com"));
      await both("no key", "GET", customer(), { key: null });
      await both("wrong key", "GET", customer(), { key: "nope" });
      await both("another program", "GET", `/v1/programs/${stack.otherProgramId}/customers/a%40b.c`);
      await both("increase", "POST", `${customer()}/balance/increase`, {
        headers: json,
        body: JSON.stringify({ points: 120, reason: "parity" }),
      });
      await both("decrease", "POST", `${customer()}/balance/decrease`, {
        headers: json,
        body: JSON.stringify({ points: 20 }),
      });
      await both("decrease too much", "POST", `${customer()}/balance/decrease`, {
        headers: json,
        body: JSON.stringify({ points: 1_000_000 }),
      });
      await both("earning flow", "POST", `${customer()}/earning-flows/visit`, { headers: json, body: "{}" });
      await both("unknown flow", "POST", `${customer()}/earning-flows/nope`, { headers: json, body: "{}" });
      await both("transactions", "GET", `${customer()}/transactions?limit=2`);
      await both("balance explained", "GET", `${customer()}/balance`);
      await both("balance explained, POST", "POST", `${customer()}/balance`, { headers: json, body: "{}" });
      await both("bad query", "GET", `${customer()}/transactions?limit=abc`);
      await both("tiers", "GET", `${p()}/tiers`);
      await both("rewards", "GET", `${p()}/rewards`);
      await both("redeem unknown reward", "POST", `${customer()}/rewards/00000000-0000-4000-8000-000000000000/redeem`, {
        headers: json,
        body: "{}",
      });
      await both("coupon from an unknown pool", "POST", `${customer()}/coupons`, {
        headers: json,
        body: JSON.stringify({ couponPoolId: "00000000-0000-4000-8000-000000000000" }),
      });
      await both("notification, invalid", "POST", `${customer()}/notifications`, { headers: json, body: "{}" });
      const token = await both("token", "GET", `${customer()}/token`);
      assert.equal(token.status, 200);
      await both("token for a day", "GET", `${customer()}/token?expires_in=86400`);
      // `customers/token` is a static segment beside `customers/{email}`: both servers must prefer the static one.
      const alias = await both("token alias", "GET", `${p()}/customers/token?email=<who>-1%40example.com`);
      assert.equal(alias.status, 200);
      await both("token alias, expires_in too long", "GET", `${p()}/customers/token?email=a%40b.co&expires_in=604801`);
      await both("execute alias", "POST", `${p()}/custom-earning-flows/visit/execute`, {
        headers: json,
        body: JSON.stringify({ customerEmail: "<who>-1@example.com" }),
      });
      await both("loyalty item", "POST", `${p()}/integrations/api`, {
        headers: json,
        body: JSON.stringify([
          {
            email: "<who>-1@example.com",
            feature: "loyalty",
            payload: { balance: 5, memberSince: "2021-01-01", tierStatus: "Silver" },
          },
        ]),
      });
      await both("me without a token", "GET", `${p()}/me`, { key: null });
      await both("me with a bad token", "GET", `${p()}/me/transactions`, {
        key: null,
        headers: { authorization: "Bearer x.y.z" },
      });
      await both("me redeem without a token", "POST", `${p()}/me/rewards/x/redeem`, { key: null, body: "{}" });
      await both("delete", "DELETE", `${p()}/integrations/api`, {
        headers: json,
        body: JSON.stringify([{ email: "<who>+plus@example.com" }]),
      });
      await both("deleted", "GET", customer("<who>+plus@example.com"));
    });

    test("a customer token works the same on both (/me)", async () => {
      for (const app of [front, next]) {
        const who = app === front ? "front" : "next";
        const r = await send(app.baseUrl, "GET", `${customer().replace("<who>", who)}/token`, {
          headers: { "api-key": stack.key },
        });
        assert.equal(r.status, 200, r.body);
        const { token } = JSON.parse(r.body) as { token: string };
        const me = await send(app.baseUrl, "GET", `${p()}/me`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(me.status, 200, me.body);
        assert.match(me.body, new RegExp(`${who}-1@example.com`));
      }
    });

    test("the edge: unknown paths, methods, OPTIONS, HEAD, TRACE, malformed encoding, trailing slash", async () => {
      await both("unknown path", "GET", "/v1/nope");
      await both("/v1 itself", "GET", "/v1");
      await both("missing segment", "GET", `${p()}/customers`);
      await both("empty segment", "GET", `${p()}/customers//transactions`);
      await both("trailing slash", "GET", `${customer()}/`);
      await both("405", "DELETE", `${p()}/tiers`);
      await both("405 with a body", "PUT", customer(), { headers: json, body: "{}" });
      await both("OPTIONS", "OPTIONS", customer());
      await both("OPTIONS on an unknown path", "OPTIONS", "/v1/nope");
      await both("HEAD", "HEAD", customer());
      await both("HEAD openapi", "HEAD", "/v1/openapi.json");
      await both("TRACE /v1", "TRACE", "/v1/openapi.json");
      await both("TRACE page", "TRACE", "/signin", { key: null });
      await both("malformed encoding", "GET", `${p()}/customers/%E0%A4%A`);
      await both("malformed in an unknown path", "GET", "/v1/x%zz");
      await both("caller's request id", "GET", customer(), { headers: { "x-request-id": "parity-123" } });
      await both("insane request id", "GET", customer(), { headers: { "x-request-id": "a b" } });
      await both("https proxy (HSTS)", "GET", customer(), { headers: { "x-forwarded-proto": "https" } });
      await both("openapi", "GET", "/v1/openapi.json", { key: null });
      await both("dashboard page", "GET", "/signin", { key: null });
      await both("static 404 page", "GET", "/nope", { key: null });
    });

    test("bodies: oversized, wrong type, bad JSON, empty, deep; idempotent replay", async () => {
      const increase = `${customer()}/balance/increase`;
      await both("oversized", "POST", increase, {
        headers: json,
        body: JSON.stringify({ points: 1, reason: "x".repeat(2 * 1024 * 1024) }),
      });
      await both("wrong content-type", "POST", increase, { headers: { "content-type": "text/plain" }, body: "{}" });
      await both("bad JSON", "POST", increase, { headers: json, body: "{points:" });
      await both("empty JSON body", "POST", increase, { headers: json, body: "" });
      await both("deep JSON", "POST", increase, { headers: json, body: "[".repeat(200) + "]".repeat(200) });
      await both("invalid points", "POST", increase, { headers: json, body: JSON.stringify({ points: -1 }) });
      const keyed = { headers: { ...json, "idempotency-key": "parity-<who>" }, body: JSON.stringify({ points: 5 }) };
      const first = await both("keyed", "POST", increase, keyed);
      const again = await both("replayed", "POST", increase, keyed);
      assert.equal(first.status, 200);
      assert.equal(again.headers["idempotent-replayed"], "true");
      await both("same key, other body", "POST", increase, { ...keyed, body: JSON.stringify({ points: 6 }) });
    });
  },
);
