/**
 * The outbox's retry rule, pure: what one attempt leaves a webhook or push delivery as. A failed attempt is
 * retried (exponential backoff with jitter, capped at an hour) until the give-up window has passed since the
 * delivery was created, and never given up before `MIN_ATTEMPTS_BEFORE_GIVING_UP` attempts however late they
 * come: a worker that was down, or a backlog that took longer than the window, still retries what it finds
 * instead of failing it on its first error.
 */

export const MIN_ATTEMPTS_BEFORE_GIVING_UP = 3;
const MAX_DELAY_MS = 3_600_000;

export interface RetryPolicy {
  baseDelayMs: number;
  giveUpAfterMs: number;
}

export type AttemptOutcome = "delivered" | "pending" | "failed";

/** `attempts` counts the attempt just made. */
export function attemptOutcome(
  ok: boolean,
  attempts: number,
  createdAtMs: number,
  nowMs: number,
  policy: Pick<RetryPolicy, "giveUpAfterMs">,
): AttemptOutcome {
  if (ok) return "delivered";
  const expired = nowMs - createdAtMs > policy.giveUpAfterMs;
  return expired && attempts >= MIN_ATTEMPTS_BEFORE_GIVING_UP ? "failed" : "pending";
}

/** The wait before the next attempt after `attempts` failed ones; `random` in [0, 1) spreads it by ±20%. */
export function retryDelayMs(
  attempts: number,
  policy: Pick<RetryPolicy, "baseDelayMs">,
  random = Math.random(),
): number {
  const delay = Math.min(MAX_DELAY_MS, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(delay * (0.8 + random * 0.4));
}
