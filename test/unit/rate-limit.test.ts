import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { takeToken } from "@/lib/api/rate-limit";

let n = 0;
/** Buckets live in module memory: each test takes keys of its own. */
const key = () => `unit-${process.pid}-${++n}`;
const T0 = 1_700_000_000_000;

describe("takeToken (per-key token bucket)", () => {
  test("allows exactly the burst at once, counting down Remaining, then refuses", () => {
    const id = key();
    for (let i = 0; i < 100; i++) {
      const d = takeToken(id, 1, 100, T0);
      assert.equal(d.allowed, true, `request ${i + 1}`);
      assert.equal(d.remaining, 99 - i);
      assert.equal(d.limit, 1);
    }
    const refused = takeToken(id, 1, 100, T0);
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 0);
    assert.equal(refused.retryAfterSeconds, 1);
    assert.equal(refused.resetSeconds, 100, "a full refill takes burst / rate seconds");
  });

  test("refills at the rate: a token comes back after 1 / rate seconds, not before", () => {
    const id = key();
    for (let i = 0; i < 3; i++) takeToken(id, 1, 3, T0);
    assert.equal(takeToken(id, 1, 3, T0).allowed, false);
    assert.equal(takeToken(id, 1, 3, T0 + 999).allowed, false);
    assert.equal(takeToken(id, 1, 3, T0 + 1000).allowed, true);
    assert.equal(takeToken(id, 1, 3, T0 + 1000).allowed, false);
    // Retry-After rounds the wait up to whole seconds and is at least 1.
    const fast = key();
    for (let i = 0; i < 10; i++) takeToken(fast, 10, 10, T0);
    assert.equal(takeToken(fast, 10, 10, T0).retryAfterSeconds, 1);
    const slow = key();
    takeToken(slow, 0.25, 1, T0);
    assert.equal(takeToken(slow, 0.25, 1, T0).retryAfterSeconds, 4);
  });

  test("a long idle time never fills the bucket beyond its burst", () => {
    const id = key();
    takeToken(id, 50, 100, T0);
    const later = takeToken(id, 50, 100, T0 + 3_600_000);
    assert.equal(later.allowed, true);
    assert.equal(later.remaining, 99);
    let allowed = 1;
    while (takeToken(id, 50, 100, T0 + 3_600_000).allowed) allowed++;
    assert.equal(allowed, 100);
  });

  test("RateLimit-Reset is the time to refill completely", () => {
    const id = key();
    for (let i = 0; i < 10; i++) takeToken(id, 5, 20, T0);
    const d = takeToken(id, 5, 20, T0);
    assert.equal(d.remaining, 9);
    assert.equal(d.resetSeconds, Math.ceil(11 / 5));
  });

  test("each key has its own bucket", () => {
    const a = key();
    const b = key();
    assert.equal(takeToken(a, 1, 1, T0).allowed, true);
    assert.equal(takeToken(a, 1, 1, T0).allowed, false);
    assert.equal(takeToken(b, 1, 1, T0).allowed, true);
  });
});
