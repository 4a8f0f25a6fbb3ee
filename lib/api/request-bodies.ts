import "server-only";
/**
 * The bytes of each /v1 request body the production front (server/front.ts) has already read in full, for
 * `readJsonBody` (./json-body.ts), which takes them from here instead of reading the Request's body stream: a small
 * JSON body read through a Web stream fed from the node:http stream cost more than the rest of the body's handling
 * (bench/profile.ts). Such a Request has no body of its own (building one costs a stream per request): on the
 * front's requests, readJsonBody is the one reader of a /v1 body.
 * On globalThis for the same reason as ./response-texts.ts: the route modules and the front are separate copies.
 */
const KEY = Symbol.for("loyalty.requestBodies");
const holder = globalThis as unknown as Record<symbol, WeakMap<Request, Uint8Array> | undefined>;

export const REQUEST_BODIES: WeakMap<Request, Uint8Array> = (holder[KEY] ??= new WeakMap());
