import "server-only";
/**
 * The JSON text of each Response the /v1 edge builds (lib/api/edge.ts `replyToResponse`), for the production front
 * (server/front.ts), which writes that text as it is instead of reading it back out of the Response's body stream
 * (one stream and two reads per answer). On globalThis: the route modules (Next's bundles) and the front are separate
 * copies of this module, and they must share the one map. Weak: an entry lives as long as its Response.
 */
const KEY = Symbol.for("loyalty.responseTexts");
const holder = globalThis as unknown as Record<symbol, WeakMap<Response, string> | undefined>;

export const RESPONSE_TEXTS: WeakMap<Response, string> = (holder[KEY] ??= new WeakMap());

/**
 * The requests the front serves. Their answers are written from RESPONSE_TEXTS, so the edge builds their Responses
 * without a body: a Response made from a string builds a body stream that nobody would read (about 12 µs of CPU
 * per answer on Node 20, with its garbage). Under `next start` no request is in here and every Response has its body.
 */
const FRONT_KEY = Symbol.for("loyalty.frontRequests");
const frontHolder = globalThis as unknown as Record<symbol, WeakSet<Request> | undefined>;

export const FRONT_REQUESTS: WeakSet<Request> = (frontHolder[FRONT_KEY] ??= new WeakSet());
