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
