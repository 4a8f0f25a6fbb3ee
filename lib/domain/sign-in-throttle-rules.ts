/**
 * The sign-in throttle's rule, pure: how long a key (an account or a client address) must wait before its next
 * attempt, and its state after a failure. Up to `BACKOFF_AFTER_FAILURES` failures cost nothing; each further one
 * doubles the wait (base, 2×base, 4×base, …); the `LOCK_AFTER_FAILURES`th locks the key for `lockMs`. Failures
 * are forgotten `lockMs` after the last one, so a lock ends with a clean slate.
 */

export const BACKOFF_AFTER_FAILURES = 5;
export const LOCK_AFTER_FAILURES = 10;

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
export function current(state: ThrottleState | null, now: Date, policy: ThrottlePolicy): ThrottleState | null {
  if (!state) return null;
  if (state.lockedUntil && state.lockedUntil > now) return state;
  if (now.getTime() - state.lastFailureAt.getTime() >= policy.lockMs) return null;
  return { ...state, lockedUntil: null };
}

/** When the key may try again, or null when it may now. */
export function blockedUntil(state: ThrottleState | null, now: Date, policy: ThrottlePolicy): Date | null {
  const s = current(state, now, policy);
  if (!s) return null;
  if (s.lockedUntil) return s.lockedUntil;
  if (s.failures < BACKOFF_AFTER_FAILURES) return null;
  const until = new Date(s.lastFailureAt.getTime() + policy.backoffBaseMs * 2 ** (s.failures - BACKOFF_AFTER_FAILURES));
  return until > now ? until : null;
}

/**
 * The failure count once this attempt is counted. An attempt counts as a failure from the moment it starts, so
 * concurrent guesses cannot all slip through before the first is judged; a successful one is given back.
 */
export const failuresWithAttempt = (state: ThrottleState | null, now: Date, policy: ThrottlePolicy): number =>
  (current(state, now, policy)?.failures ?? 0) + 1;

/** The lock a confirmed failure starts, or null. */
export const lockAfter = (failures: number, now: Date, policy: ThrottlePolicy): Date | null =>
  failures >= LOCK_AFTER_FAILURES ? new Date(now.getTime() + policy.lockMs) : null;
