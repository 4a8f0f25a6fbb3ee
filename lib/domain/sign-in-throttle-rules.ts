/**
 * The sign-in throttle's rule, pure: how long a key (an account or a client address) must wait before its next
 * attempt, and its state after a failure. Up to `BACKOFF_AFTER_FAILURES` failures cost nothing; each further one
 * doubles the wait (base, 2×base, 4×base, …); the `LOCK_AFTER_FAILURES`th locks the key for `lockMs`. A lock
 * ends with a clean slate; failures are also forgotten `FAILURE_MEMORY_MS` after the last one.
 */

export const BACKOFF_AFTER_FAILURES = 5;
export const LOCK_AFTER_FAILURES = 10;
export const FAILURE_MEMORY_MS = 15 * 60_000;

export interface ThrottlePolicy {
  backoffBaseMs: number;
  lockMs: number;
}

export interface ThrottleState {
  failures: number;
  lastFailureAt: Date;
  lockedUntil: Date | null;
}

/** The state as of `now`: failures older than the window are forgotten. */
export function current(state: ThrottleState | null, now: Date): ThrottleState | null {
  if (!state) return null;
  if (state.lockedUntil) return state.lockedUntil > now ? state : null;
  if (now.getTime() - state.lastFailureAt.getTime() >= FAILURE_MEMORY_MS) return null;
  return state;
}

/** When the key may try again, or null when it may now. */
export function blockedUntil(state: ThrottleState | null, now: Date, policy: ThrottlePolicy): Date | null {
  const s = current(state, now);
  if (!s) return null;
  if (s.lockedUntil) return s.lockedUntil;
  if (s.failures < BACKOFF_AFTER_FAILURES) return null;
  const until = new Date(s.lastFailureAt.getTime() + backoffMs(s.failures, policy));
  return until > now ? until : null;
}

/** The wait after the last of `failures` failures: none up to the threshold, then base, 2×base, 4×base, … */
export const backoffMs = (failures: number, policy: ThrottlePolicy): number =>
  failures < BACKOFF_AFTER_FAILURES ? 0 : policy.backoffBaseMs * 2 ** (failures - BACKOFF_AFTER_FAILURES);

/**
 * The failure count once this attempt is counted. An attempt counts as a failure from the moment it starts, so
 * concurrent guesses cannot all slip through before the first is judged; a successful one is given back.
 */
export const failuresWithAttempt = (state: ThrottleState | null, now: Date): number =>
  (current(state, now)?.failures ?? 0) + 1;

/** The lock a confirmed failure starts, or null. */
export const lockAfter = (failures: number, now: Date, policy: ThrottlePolicy): Date | null =>
  failures >= LOCK_AFTER_FAILURES ? new Date(now.getTime() + policy.lockMs) : null;
