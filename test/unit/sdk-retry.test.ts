/** The client's retry policy (sdk/retry.ts): Retry-After parsing, backoff, and which answers and failures are retried. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseRetryAfter, retryDelayMs, retryingFetch } from "@/sdk/retry";

const NOW = Date.parse("2026-11-24T12:00:00Z");

describe("parseRetryAfter", () => {
  test("reads delta-seconds as ms", () => {
    assert.equal(parseRetryAfter("1", NOW), 1000);
    assert.equal(parseRetryAfter(" 120 ", NOW), 120_000);
    assert.equal(parseRetryAfter("0", NOW), 0);
  });
  test("reads an HTTP date as the ms until then, 0 when it is past", () => {
    assert.equal(parseRetryAfter("Tue, 24 Nov 2026 12:00:30 GMT", NOW), 30_000);
    assert.equal(parseRetryAfter("Tue, 24 Nov 2026 11:00:00 GMT", NOW), 0);
  });
  test("is undefined when absent or unreadable", () => {
    for (const value of [null, undefined, "", "soon", "1.5", "-1", "1e3"])
      assert.equal(parseRetryAfter(value, NOW), undefined, String(value));
  });
});

describe("retryDelayMs", () => {
  const low = () => 0;
  const high = () => 0.999999;
  test("waits Retry-After, never less, plus at most one base step of jitter", () => {
    assert.equal(retryDelayMs(0, 1000, { baseDelayMs: 100 }, low), 1000);
    assert.equal(retryDelayMs(2, 1000, { baseDelayMs: 100 }, high), 1099);
  });
  test("gives up when Retry-After asks for more than maxDelayMs", () => {
    assert.equal(retryDelayMs(0, 60_000, { maxDelayMs: 30_000 }), undefined);
  });
  test("without Retry-After: between half and all of base × 2^retry, capped by maxDelayMs", () => {
    const opts = { baseDelayMs: 100, maxDelayMs: 1000 };
    assert.deepEqual(
      [0, 1, 2, 3, 4, 10].map((r) => [retryDelayMs(r, undefined, opts, low), retryDelayMs(r, undefined, opts, high)]),
      [
        [50, 99],
        [100, 199],
        [200, 399],
        [400, 799],
        [500, 999],
        [500, 999],
      ],
    );
  });
});

/** A fetch that answers from `script` in turn (a status with headers, or an error to throw), recording each request. */
function scripted(script: (number | [number, Record<string, string>] | Error)[]) {
  const seen: { method: string; key: string | null; body: string }[] = [];
  const fetch = async (request: Request) => {
    seen.push({ method: request.method, key: request.headers.get("idempotency-key"), body: await request.text() });
    const next = script.shift();
    if (next === undefined) throw new Error("no more answers scripted");
    if (next instanceof Error) throw next;
    const [status, headers] = typeof next === "number" ? [next, {}] : next;
    return new Response(status === 204 ? null : JSON.stringify({ status }), { status, headers });
  };
  return { fetch, seen };
}
const waits: number[] = [];
const noWait = async (ms: number) => void waits.push(ms);
const post = (key?: string) =>
  new Request("http://api.test/v1/x", {
    method: "POST",
    body: '{"points":1}',
    headers: key ? { "idempotency-key": key } : {},
  });

describe("retryingFetch", () => {
  test("retries 429 after Retry-After, sending the same body and Idempotency-Key, then returns the success", async () => {
    waits.length = 0;
    const { fetch, seen } = scripted([[429, { "retry-after": "2" }], 200]);
    const res = await retryingFetch(fetch, {}, noWait)(post("k-1"));
    assert.equal(res.status, 200);
    assert.deepEqual(
      seen.map((s) => [s.key, s.body]),
      [
        ["k-1", '{"points":1}'],
        ["k-1", '{"points":1}'],
      ],
    );
    assert.ok(waits[0]! >= 2000 && waits[0]! < 2250, String(waits[0]));
  });
  test("retries 503 and network errors of a POST with an Idempotency-Key, and of a GET", async () => {
    const a = scripted([503, new TypeError("fetch failed"), 201]);
    assert.equal((await retryingFetch(a.fetch, {}, noWait)(post("k-2"))).status, 201);
    assert.equal(a.seen.length, 3);
    const b = scripted([new TypeError("fetch failed"), 200]);
    assert.equal((await retryingFetch(b.fetch, {}, noWait)(new Request("http://api.test/v1/x"))).status, 200);
  });
  test("does not repeat a POST without an Idempotency-Key after a 503 or a network error (it may have acted)", async () => {
    const a = scripted([503]);
    assert.equal((await retryingFetch(a.fetch, {}, noWait)(post())).status, 503);
    const b = scripted([new TypeError("fetch failed")]);
    await assert.rejects(retryingFetch(b.fetch, {}, noWait)(post()), /fetch failed/);
    assert.equal(b.seen.length, 1);
  });
  test("stops after `retries` repeats and returns the last answer; never retries other statuses", async () => {
    const a = scripted([429, 429, 429]);
    assert.equal((await retryingFetch(a.fetch, { retries: 2 }, noWait)(post("k-3"))).status, 429);
    assert.equal(a.seen.length, 3);
    for (const status of [400, 409, 500, 502]) {
      const b = scripted([status]);
      assert.equal((await retryingFetch(b.fetch, {}, noWait)(post("k-4"))).status, status);
      assert.equal(b.seen.length, 1);
    }
  });
  test("returns a 429 at once when its Retry-After is longer than maxDelayMs", async () => {
    const a = scripted([[429, { "retry-after": "3600" }]]);
    assert.equal((await retryingFetch(a.fetch, {}, noWait)(post("k-5"))).status, 429);
    assert.equal(a.seen.length, 1);
  });
  test("an abort during the wait ends the call with the abort's reason", async () => {
    const controller = new AbortController();
    const a = scripted([[429, { "retry-after": "5" }], 200]);
    const request = new Request("http://api.test/v1/x", { signal: controller.signal });
    const call = retryingFetch(a.fetch)(request);
    setTimeout(() => controller.abort(new Error("gave up")), 20);
    await assert.rejects(call, /gave up/);
    assert.equal(a.seen.length, 1);
  });
});
