import { test } from "node:test";
import assert from "node:assert/strict";
import { attemptOutcome, MIN_ATTEMPTS_BEFORE_GIVING_UP, retryDelayMs } from "@/lib/domain/delivery-retry-rules";

const policy = { baseDelayMs: 200, giveUpAfterMs: 5000 };
const created = Date.parse("2026-11-27T00:00:00Z");

test("a successful attempt delivers, whenever it comes", () => {
  assert.equal(attemptOutcome(true, 1, created, created + 10, policy), "delivered");
  assert.equal(attemptOutcome(true, 9, created, created + 86_400_000, policy), "delivered");
});

test("a failed attempt inside the window is retried", () => {
  for (let attempts = 1; attempts <= 10; attempts++)
    assert.equal(attemptOutcome(false, attempts, created, created + policy.giveUpAfterMs, policy), "pending");
});

test("past the window a delivery fails, but never before its third attempt (a first attempt that came late)", () => {
  const late = created + policy.giveUpAfterMs + 1;
  for (let attempts = 1; attempts < MIN_ATTEMPTS_BEFORE_GIVING_UP; attempts++)
    assert.equal(attemptOutcome(false, attempts, created, late, policy), "pending", `attempt ${attempts}`);
  assert.equal(attemptOutcome(false, MIN_ATTEMPTS_BEFORE_GIVING_UP, created, late, policy), "failed");
});

test("the retry delay doubles per attempt within ±20%, capped at an hour", () => {
  assert.equal(retryDelayMs(1, policy, 0.5), 200);
  assert.equal(retryDelayMs(2, policy, 0.5), 400);
  assert.equal(retryDelayMs(4, policy, 0.5), 1600);
  assert.equal(retryDelayMs(1, policy, 0), 160);
  assert.equal(retryDelayMs(1, policy, 0.999_999), 240);
  assert.equal(retryDelayMs(40, policy, 0.5), 3_600_000);
});
