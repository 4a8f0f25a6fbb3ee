/**
 * The one place for the client's retry policy (API.md §1: 429 and 503 carry Retry-After; a POST repeated with the
 * same Idempotency-Key replays its first outcome instead of acting twice). A `fetch` that tries a request again:
 *
 *  - on 429 `rate_limited` (the request was refused before it was read, so it is always safe to repeat);
 *  - on 503 `service_unavailable`, and on a network error (no answer at all), only when repeating cannot act twice:
 *    an idempotent method (GET, HEAD, OPTIONS, PUT, DELETE) or a request carrying an Idempotency-Key, which the
 *    client adds to every POST;
 *  - waiting Retry-After when the answer gives one (seconds or an HTTP date) and exponential backoff with jitter
 *    otherwise, at most `retries` times, and never longer than `maxDelayMs` (an answer asking for more is returned).
 *
 * Browser- and edge-safe: only fetch, Request, Response, AbortSignal and timers.
 */

export interface RetryOptions {
  /** How many times a request may be repeated after its first attempt. Default 3; 0 turns retrying off. */
  retries?: number;
  /** The first backoff step, in ms; it doubles with each retry. Default 250. */
  baseDelayMs?: number;
  /** The longest wait before a retry, in ms. An answer whose Retry-After asks for more is returned as is. Default 30 000. */
  maxDelayMs?: number;
}

export const DEFAULT_RETRIES = 3;
export const DEFAULT_BASE_DELAY_MS = 250;
export const DEFAULT_MAX_DELAY_MS = 30_000;

/** Statuses worth another attempt: rate limited, and temporarily unavailable. */
const RETRY_STATUSES = new Set([429, 503]);
/** Methods that RFC 9110 §9.2.2 defines as idempotent: repeating one cannot act twice. */
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/**
 * Retry-After (RFC 9110 §10.2.3) in ms from `now`: delta-seconds, or an HTTP date (0 when it is past).
 * Undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined; // "1.5", "-1": neither form
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long to wait before retry number `retry` (0 for the first), or undefined to give up and return the answer.
 * With a Retry-After: that long (never sooner), plus up to one base step of jitter so that clients refused together
 * do not all come back at the same instant. Without: "equal jitter" backoff, between half and all of
 * min(maxDelayMs, baseDelayMs × 2^retry).
 */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | undefined,
  options: RetryOptions = {},
  random: () => number = Math.random,
): number | undefined {
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > max) return undefined;
    return Math.min(max, retryAfterMs + Math.floor(random() * base));
  }
  const step = Math.min(max, base * 2 ** retry);
  return Math.floor(step / 2 + random() * (step / 2));
}

/** Whether repeating `request` cannot act twice: an idempotent method, or an Idempotency-Key the server replays by. */
export const isReplayable = (request: Request) =>
  IDEMPOTENT_METHODS.has(request.method.toUpperCase()) || request.headers.has("idempotency-key");

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export type FetchLike = (request: Request) => Promise<Response>;

/**
 * `fetchImpl` with the retry policy above. Each attempt sends a copy of `request` (same method, URL, headers, hence the
 * same Idempotency-Key, and body); the answer that ends the loop is returned unread.
 */
export function retryingFetch(
  fetchImpl: FetchLike,
  options: RetryOptions = {},
  wait: (ms: number, signal?: AbortSignal | null) => Promise<void> = sleep,
): FetchLike {
  const retries = Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES));
  return async (request) => {
    for (let retry = 0; ; retry++) {
      const last = retry >= retries;
      let response: Response;
      try {
        response = await fetchImpl(last ? request : request.clone());
      } catch (err) {
        if (last || request.signal?.aborted || !isReplayable(request)) throw err;
        await wait(retryDelayMs(retry, undefined, options) ?? 0, request.signal);
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status)) return response;
      if (response.status === 503 && !isReplayable(request)) return response;
      const delay = retryDelayMs(retry, parseRetryAfter(response.headers.get("retry-after")), options);
      if (delay === undefined) return response;
      await response.body?.cancel().catch(() => {}); // frees the connection; the answer is dropped
      await wait(delay, request.signal);
    }
  };
}
