import "server-only";
import http from "node:http";
/**
 * Every channel between the production front (server/main.ts, server/front.ts) and the code Next loads (the /v1
 * route modules, instrumentation-node.ts), in one module, with the one hook into node:http that `next start` needs
 * instead (`interceptRequests`). They are separate copies of this module (Next bundles its
 * own), so each channel lives on globalThis under a `Symbol.for` key that every copy finds. The maps are weak: an
 * entry lives as long as its Request or Response. Under `next start` the front is absent and every channel is empty.
 */
const slot = <T>(name: string, make: () => T): T => {
  const holder = globalThis as unknown as Record<symbol, T | undefined>;
  return (holder[Symbol.for(`loyalty.${name}`)] ??= make());
};

/**
 * The JSON text of each Response the /v1 edge builds (lib/api/edge.ts `replyToResponse`), which the front writes as
 * it is instead of reading it back out of the Response's body stream (one stream and two reads per answer).
 */
export const RESPONSE_TEXTS = slot("responseTexts", () => new WeakMap<Response, string>());

/**
 * The requests the front serves. Their answers are written from RESPONSE_TEXTS, so the edge builds their Responses
 * without a body: a Response made from a string builds a body stream that nobody would read (about 12 µs of CPU
 * per answer on Node 20, with its garbage).
 */
export const FRONT_REQUESTS = slot("frontRequests", () => new WeakSet<Request>());

/**
 * The bytes of each /v1 request body the front has already read in full, for `readJsonBody` (./json-body.ts), which
 * takes them from here instead of reading the Request's body stream: a small JSON body read through a Web stream fed
 * from the node:http stream cost more than the rest of the body's handling (bench/profile.ts). Such a Request has no
 * body of its own (building one costs a stream per request): on the front's requests, readJsonBody is the one reader
 * of a /v1 body.
 */
export const REQUEST_BODIES = slot("requestBodies", () => new WeakMap<Request, Uint8Array>());

const process_ = slot("frontProcess", () => ({ front: false, drain: undefined as (() => Promise<void>) | undefined }));

/** Set by server/main.ts before Next starts: the front answers the edge guard's verdicts itself. */
export const markServedByFront = () => void (process_.front = true);
export const servedByFront = () => process_.front;

/**
 * Left by instrumentation-node.ts, run by server/main.ts on shutdown: ends the scheduled jobs (the run in progress
 * finishes) and closes the pools.
 */
export const setDrain = (drain: () => Promise<void>) => void (process_.drain = drain);
export const drain = async () => process_.drain?.();

const intercepted = slot("interceptedRequests", () => ({ installed: false }));

/**
 * Under `next start` (no front): every `request` event of every node:http server of the process (Next's included,
 * created before or after this call, which all look `emit` up on `http.Server.prototype`) goes to `judge` first, which
 * answers the requests it takes and returns true; the others reach the server's listeners as usual. Patched once per
 * process (the flag is a slot: every copy of this module sees it). The /v1 edge guard is its one user
 * (./http-guard.ts `installEdgeGuard`, from instrumentation-node.ts); the front judges its requests itself.
 */
export function interceptRequests(judge: (req: http.IncomingMessage, res: http.ServerResponse) => boolean): void {
  if (intercepted.installed) return;
  intercepted.installed = true;
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function judgedEmit(this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request" && judge(...(args as [http.IncomingMessage, http.ServerResponse]))) return true;
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof emit;
}
