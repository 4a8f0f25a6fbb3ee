import { test } from "node:test";
import assert from "node:assert/strict";
import {
  blockedUntil,
  failuresWithAttempt,
  FAILURE_MEMORY_MS,
  lockAfter,
  type ThrottleState,
} from "@/lib/domain/sign-in-throttle-rules";

const policy = { backoffBaseMs: 1000, lockMs: 15 * 60_000 };
const t0 = new Date("2026-01-01T00:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

/** Fails as soon as allowed, `n` times; returns each wait (ms after the previous failure) and the final state. */
function failRepeatedly(n: number) {
  let state: ThrottleState | null = null;
  let now = t0;
  const waits: number[] = [];
  for (let i = 0; i < n; i++) {
    const until = blockedUntil(state, now, policy);
    waits.push(until ? until.getTime() - now.getTime() : 0);
    if (until) now = until;
    const failures = failuresWithAttempt(state, now);
    state = { failures, lastFailureAt: now, lockedUntil: lockAfter(failures, now, policy) };
  }
  return { waits, state: state!, now };
}

test("the first five failures cost nothing; then each wait doubles from the base", () => {
  assert.deepEqual(failRepeatedly(10).waits, [0, 0, 0, 0, 0, 1000, 2000, 4000, 8000, 16000]);
});

test("the tenth failure locks the key for the lock time; the lock ends with a clean slate", () => {
  const { state, now } = failRepeatedly(10);
  assert.equal(state.failures, 10);
  assert.deepEqual(state.lockedUntil, new Date(now.getTime() + policy.lockMs));
  assert.deepEqual(blockedUntil(state, now, policy), state.lockedUntil);
  assert.deepEqual(
    blockedUntil(state, at(now.getTime() - t0.getTime() + policy.lockMs - 1), policy),
    state.lockedUntil,
  );
  const after = new Date(state.lockedUntil!.getTime());
  assert.equal(blockedUntil(state, after, policy), null);
  assert.equal(failuresWithAttempt(state, after), 1);
});

test("failures are forgotten a while after the last one", () => {
  const state: ThrottleState = { failures: 7, lastFailureAt: t0, lockedUntil: null };
  assert.equal(failuresWithAttempt(state, at(FAILURE_MEMORY_MS - 1)), 8);
  assert.equal(failuresWithAttempt(state, at(FAILURE_MEMORY_MS)), 1);
  assert.equal(blockedUntil(state, at(FAILURE_MEMORY_MS), policy), null);
});

test("no wait before the fifth failure, whatever the timing", () => {
  const state: ThrottleState = { failures: 4, lastFailureAt: t0, lockedUntil: null };
  assert.equal(blockedUntil(state, t0, policy), null);
  assert.deepEqual(blockedUntil({ ...state, failures: 5 }, t0, policy), at(1000));
  assert.equal(lockAfter(9, t0, policy), null);
});
