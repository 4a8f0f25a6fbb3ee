/**
 * The typed client (sdk/client.ts, sdk/errors.ts) against a scripted fetch: credentials, the Idempotency-Key of every
 * POST, problem answers as LoyaltyApiError, and the transactions iterator. test/integration/sdk.test.ts drives the
 * real server with it.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createCustomerClient, createLoyaltyClient, isLoyaltyApiError, LoyaltyApiError } from "@/sdk";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const P = "/v1/programs/{programId}/customers/{email}";

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
/** A fetch that answers `answers` in turn and records what it was sent. */
function server(...answers: Answer[]) {
  const requests: Request[] = [];
  const fetch = async (request: Request) => {
    requests.push(request);
    const a = answers.shift() ?? { status: 200, body: {} };
    const problem = a.status >= 400 && typeof a.body === "object";
    return new Response(typeof a.body === "string" ? a.body : a.body === undefined ? null : JSON.stringify(a.body), {
      status: a.status,
      headers: { "content-type": problem ? "application/problem+json" : "application/json", ...a.headers },
    });
  };
  return { fetch, requests };
}
const problem = (status: number, code: string, extra: Record<string, unknown> = {}) => ({
  status,
  body: { type: "about:blank", title: code, status, detail: `${code} happened.`, code, requestId: "req-1", ...extra },
});
const client = (fetch: (r: Request) => Promise<Response>) =>
  createLoyaltyClient({ baseUrl: "https://loyalty.test/", apiKey: "key-1", fetch, baseDelayMs: 1 });

describe("createLoyaltyClient", () => {
  test("sends the api-key, encodes path params and resolves to the typed body", async () => {
    const s = server({ status: 200, body: { email: "a+b@example.com" } });
    const customer = await client(s.fetch).GET(P, { params: { path: { programId: "p1", email: "a+b@example.com" } } });
    assert.equal(customer.email, "a+b@example.com");
    assert.equal(s.requests[0]!.url, "https://loyalty.test/v1/programs/p1/customers/a%2Bb%40example.com");
    assert.equal(s.requests[0]!.headers.get("api-key"), "key-1");
  });

  test("gives every POST a new Idempotency-Key and keeps it across a retry; a caller's own key is sent as is", async () => {
    const s = server(problem(429, "rate_limited", {}), { status: 200, body: {} }, { status: 200, body: {} });
    s.requests.length = 0;
    const loyalty = client(s.fetch);
    const increase = (key?: string) =>
      loyalty.POST(`${P}/balance/increase`, {
        params: { path: { programId: "p1", email: "a@example.com" }, header: key ? { "Idempotency-Key": key } : {} },
        body: { points: 5 },
      });
    await increase();
    await increase("mine-1");
    const keys = s.requests.map((r) => r.headers.get("idempotency-key"));
    assert.match(keys[0]!, UUID);
    assert.equal(keys[1], keys[0], "the retry after 429 carries the same key");
    assert.equal(keys[2], "mine-1");
    assert.equal(s.requests[1]!.headers.get("content-type"), "application/json");
    assert.equal(await s.requests[1]!.text(), '{"points":5}');
  });

  test("a problem answer is a LoyaltyApiError with status, code, detail, field errors, requestId and operation", async () => {
    const errors = [{ path: "points", message: "must be at least 1" }];
    const s = server(problem(400, "validation_failed", { errors }));
    const err = await client(s.fetch)
      .POST(`${P}/balance/decrease`, {
        params: { path: { programId: "p1", email: "a@example.com" } },
        body: { points: 0 },
      })
      .catch((e: unknown) => e);
    assert.ok(err instanceof LoyaltyApiError);
    assert.ok(isLoyaltyApiError(err, "decreaseBalance"));
    assert.ok(!isLoyaltyApiError(err, "increaseBalance"));
    assert.deepEqual(
      [err.status, err.code, err.detail, err.errors, err.requestId, err.operation],
      [400, "validation_failed", "validation_failed happened.", errors, "req-1", "decreaseBalance"],
    );
    assert.match(err.idempotencyKey ?? "", UUID);
    assert.match(err.message, /decreaseBalance: 400 validation_failed: .* \(request req-1\)/);
  });

  test("an answer that is not a problem is `unexpected_response`, with the x-request-id header as requestId", async () => {
    const s = server({ status: 502, body: "<html>Bad gateway</html>", headers: { "x-request-id": "edge-9" } });
    const err = await client(s.fetch)
      .GET("/v1/programs/{programId}/tiers", { params: { path: { programId: "p1" } } })
      .catch((e: unknown) => e);
    assert.ok(isLoyaltyApiError(err));
    assert.deepEqual(
      [err.status, err.code, err.requestId, err.operation],
      [502, "unexpected_response", "edge-9", "listTiers"],
    );
  });

  test("a 429 that outlasts the retries is thrown with Retry-After", async () => {
    const limited = { ...problem(429, "rate_limited"), headers: { "retry-after": "0" } };
    const s = server(limited, limited);
    const loyalty = createLoyaltyClient({ baseUrl: "https://loyalty.test", apiKey: "k", fetch: s.fetch, retries: 1 });
    const err = await loyalty
      .GET("/v1/programs/{programId}/rewards", { params: { path: { programId: "p" } } })
      .catch((e: unknown) => e);
    assert.ok(isLoyaltyApiError(err, "listRewards"));
    assert.deepEqual([err.code, err.retryAfterSeconds, s.requests.length], ["rate_limited", 0, 2]);
  });

  test("transactions() follows nextCursor until it is null", async () => {
    const entry = (id: string) => ({ id, points: 1 });
    const s = server(
      { status: 200, body: { data: [entry("t1"), entry("t2")], nextCursor: "c-2" } },
      { status: 200, body: { data: [entry("t3")], nextCursor: null } },
    );
    const ids: string[] = [];
    for await (const t of client(s.fetch).transactions("p1", "a@example.com", { limit: 2 })) ids.push(t.id);
    assert.deepEqual(ids, ["t1", "t2", "t3"]);
    assert.deepEqual(
      s.requests.map((r) => new URL(r.url).search),
      ["?limit=2", "?limit=2&cursor=c-2"],
    );
  });
});

describe("createCustomerClient", () => {
  test("sends the customer token as a bearer, asking the function for it on every request", async () => {
    const s = server({ status: 200, body: { email: "a@example.com" } }, { status: 200, body: {} });
    let calls = 0;
    const me = createCustomerClient({
      baseUrl: "https://loyalty.test",
      fetch: s.fetch,
      customerToken: () => `t${++calls}`,
    });
    await me.GET("/v1/programs/{programId}/me", { params: { path: { programId: "p1" } } });
    await me.POST("/v1/programs/{programId}/me/rewards/{rewardId}/redeem", {
      params: { path: { programId: "p1", rewardId: "r1" } },
    });
    assert.deepEqual(
      s.requests.map((r) => [r.headers.get("authorization"), r.headers.get("api-key")]),
      [
        ["Bearer t1", null],
        ["Bearer t2", null],
      ],
    );
    assert.match(s.requests[1]!.headers.get("idempotency-key") ?? "", UUID);
  });
});
