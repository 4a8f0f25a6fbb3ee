/**
 * The names of the response headers the /v1 edge sets, in one place: the code that sets each one and the OpenAPI
 * document that declares it (lib/api/openapi/headers.ts) both read them from here, so the two cannot drift.
 */

/** Every answer: the caller's sane `x-request-id`, else a new UUID (lib/api/edge.ts, edge-guard.ts). */
export const REQUEST_ID = "x-request-id";
/** Every answer of a route: `no-store` (lib/api/edge.ts). */
export const CACHE_CONTROL = "Cache-Control";
/** The caller's rate-limit bucket (lib/api/authenticate.ts): legacy headers, then the IETF draft's two. */
export const RATE_LIMIT_LIMIT = "RateLimit-Limit";
export const RATE_LIMIT_REMAINING = "RateLimit-Remaining";
export const RATE_LIMIT_RESET = "RateLimit-Reset";
export const RATE_LIMIT_POLICY = "RateLimit-Policy";
export const RATE_LIMIT = "RateLimit";
/** 429 and 503: seconds to wait before retrying (lib/errors.ts). */
export const RETRY_AFTER = "Retry-After";
/** A write answered from the stored outcome of an earlier request with the same Idempotency-Key (route-factories.ts). */
export const IDEMPOTENT_REPLAYED = "idempotent-replayed";
/** The Idempotency-Key request header of a POST (lib/api/idempotency.ts). */
export const IDEMPOTENCY_KEY = "Idempotency-Key";
