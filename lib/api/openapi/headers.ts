import "server-only";
import * as H from "@/lib/header-names";

/**
 * The one place where the document's response headers are declared (`components.headers`), by the names the code
 * sets them with (lib/header-names.ts), and the sets each kind of answer carries. Which answers carry which:
 *  - every answer: x-request-id and Cache-Control (lib/api/edge.ts);
 *  - every answer after the caller was identified (lib/api/authenticate.ts charges the bucket then): the five
 *    RateLimit headers. A 401, a 404 for the program, or a 503 before that point carries none, so on error
 *    answers they are optional; success answers and 429 always carry them;
 *  - 429 and 503: Retry-After (lib/errors.ts);
 *  - a POST answered from an earlier request's stored outcome (Idempotency-Key): idempotent-replayed.
 */

const header = (description: string, schema: Record<string, unknown>, example: unknown, required = false) => ({
  description,
  required,
  schema,
  example,
});
const seconds = { type: "integer", minimum: 0 };

const RATE_NOTE = "Sent on every answer once the caller was identified (never on a 401), 429 included.";

export const HEADER_COMPONENTS = {
  [H.REQUEST_ID]: header(
    "The request's id: the caller's own `x-request-id` when it is 1–128 characters of `[A-Za-z0-9_.:-]`, else a new UUID. Quote it to support; problem bodies repeat it as `requestId`.",
    { type: "string", minLength: 1, maxLength: 128 },
    "0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a",
    true,
  ),
  [H.CACHE_CONTROL]: header("Always `no-store`.", { type: "string", const: "no-store" }, "no-store", true),
  [H.RATE_LIMIT_LIMIT]: header(
    `The bucket size: requests allowed at once. ${RATE_NOTE}`,
    { type: "integer", minimum: 1 },
    30,
  ),
  [H.RATE_LIMIT_REMAINING]: header(`Whole requests left in the bucket. ${RATE_NOTE}`, seconds, 29),
  [H.RATE_LIMIT_RESET]: header(`Seconds until the bucket is full again. ${RATE_NOTE}`, seconds, 1),
  [H.RATE_LIMIT_POLICY]: header(
    `The policy (draft-ietf-httpapi-ratelimit-headers): \`q\` requests per \`w\` seconds. ${RATE_NOTE}`,
    { type: "string" },
    '"default";q=30;w=3',
  ),
  [H.RATE_LIMIT]: header(
    `The bucket now (draft-ietf-httpapi-ratelimit-headers): \`r\` requests left, \`t\` seconds until full. ${RATE_NOTE}`,
    { type: "string" },
    '"default";r=29;t=1',
  ),
  [H.RETRY_AFTER]: header("Seconds to wait before retrying.", { type: "integer", minimum: 1 }, 2, true),
  [H.IDEMPOTENT_REPLAYED]: header(
    "`true` when this answer is the stored outcome of an earlier request with the same Idempotency-Key and body (nothing was done again); absent otherwise.",
    { type: "string", const: "true" },
    "true",
  ),
} as const;

type HeaderName = keyof typeof HEADER_COMPONENTS;

const refs = (names: readonly HeaderName[]): Record<string, { $ref: string }> =>
  Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

const EVERY = [H.REQUEST_ID, H.CACHE_CONTROL] as const;
const RATE = [
  H.RATE_LIMIT_LIMIT,
  H.RATE_LIMIT_REMAINING,
  H.RATE_LIMIT_RESET,
  H.RATE_LIMIT_POLICY,
  H.RATE_LIMIT,
] as const;

/** The headers of a success answer; a POST's may be a replay. */
export const successHeaders = (method: string) =>
  refs([...EVERY, ...RATE, ...(method === "post" ? ([H.IDEMPOTENT_REPLAYED] as const) : [])]);

/** The headers of an error answer with this status (only successes are stored for replay: an error rolls back). */
export function problemHeaders(status: number): Record<string, unknown> {
  return refs([...EVERY, ...RATE, ...(status === 429 || status === 503 ? ([H.RETRY_AFTER] as const) : [])]);
}
