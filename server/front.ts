/**
 * The production front (issue 13): one node:http request listener that serves `/v1/**` by calling the built route
 * modules' exported handlers (`GET`, `POST`, …) directly with a Web `Request`, and hands everything else to Next's
 * own request handler in the same process. The route files under app/v1 stay the one implementation: the modules
 * called here are the ones `next build` compiled (`.next/server/app/v1/**\/route.js`, listed in
 * `.next/server/app-paths-manifest.json`), so `next start` and `next dev` serve the very same code. What this layer
 * skips is Next's per-request routing machinery, which costs more than most of our routes do (bench/README.md).
 *
 * What Next adds to a /v1 answer is reproduced here and checked by test/integration/front-parity.test.ts: the edge
 * guard's verdicts (lib/api/http-guard.ts: malformed paths, unknown paths, 405 with Allow, OPTIONS, TRACE), the
 * security headers of next.config.mjs (from lib/security-headers.json, HSTS behind an https proxy), HEAD served by
 * GET without a body. Body limits, request ids and problem+json are the route factories' own. /v1 JSON is not
 * compressed (Next would gzip it when asked): compression costs more CPU than it saves on these small answers
 * (bench/README.md); a reverse proxy may compress if wanted.
 */
import "server-only";
import type http from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { answer, dropUntrustedForwarding, toOriginForm, verdictOf } from "@/lib/api/http-guard";
import { edgeAnswer, requestIdFrom } from "@/lib/api/edge-guard";
import { internalError } from "@/lib/api/problem";
import { methodNotAllowed } from "@/lib/errors";
import SECURITY_HEADERS from "@/lib/security-headers.json";
import { FRONT_REQUESTS, REQUEST_BODIES, RESPONSE_TEXTS } from "@/lib/api/front-channels";
import { MAX_BODY_BYTES } from "@/lib/api/json-body";

type RouteContext = { params: Promise<Record<string, string>> };
type RouteHandler = (req: Request, ctx: RouteContext) => Promise<Response>;
type NextHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

/** One built /v1 route: its segments under /v1 (a `[name]` segment is a parameter) and its exported handlers. */
export interface V1Route {
  /** `/v1/programs/[programId]/…`, for logs. */
  pattern: string;
  segments: readonly ({ literal: string } | { param: string })[];
  handlers: Readonly<Record<string, RouteHandler>>;
  /** The Allow header when a method is not exported (the edge guard normally answers first). */
  allow: string;
}

const HTTP_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"] as const;

/**
 * The /v1 routes of the build in `distDir` (`.next`), each module loaded with `load` (the process's `require`).
 * Static segments win over parameters, as in Next.
 */
export function loadV1Routes(distDir: string, load: (file: string) => unknown): V1Route[] {
  const manifest = JSON.parse(readFileSync(path.join(distDir, "server", "app-paths-manifest.json"), "utf8")) as Record<
    string,
    string
  >;
  const routes: V1Route[] = [];
  for (const [page, file] of Object.entries(manifest)) {
    if (!page.startsWith("/v1/") || !page.endsWith("/route")) continue;
    const pattern = page.slice(0, -"/route".length);
    const segments = pattern
      .split("/")
      .slice(2)
      .map((s) => {
        if (s.startsWith("[...") || s.startsWith("[[")) throw new Error(`${page}: catch-all routes are not supported`);
        return s.startsWith("[") ? { param: s.slice(1, -1) } : { literal: s };
      });
    const mod = load(path.join(distDir, "server", file)) as { routeModule?: { userland?: Record<string, unknown> } };
    const userland = mod.routeModule?.userland;
    if (!userland) throw new Error(`${file}: not a route module`);
    const handlers: Record<string, RouteHandler> = {};
    for (const method of HTTP_METHODS) {
      const handler = userland[method];
      if (typeof handler === "function") handlers[method] = handler as RouteHandler;
    }
    if (handlers.GET && !handlers.HEAD) handlers.HEAD = handlers.GET;
    const allow = [...new Set([...Object.keys(handlers), "OPTIONS"])].sort().join(", ");
    routes.push({ pattern, segments, handlers, allow });
  }
  const dynamic = (r: V1Route) => r.segments.map((s) => ("param" in s ? "1" : "0")).join("");
  return routes.sort((a, b) => dynamic(a).localeCompare(dynamic(b)));
}

/** The route and decoded parameters of a /v1 path (still percent-encoded, well-formed: the edge guard checked). */
function match(
  routes: readonly V1Route[],
  pathname: string,
): { route: V1Route; params: Record<string, string> } | null {
  const parts = pathname.split("/").slice(2);
  outer: for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    for (let i = 0; i < parts.length; i++) {
      const segment = route.segments[i]!;
      if ("param" in segment ? parts[i] === "" : segment.literal !== parts[i]) continue outer;
    }
    // Decoded once the route is found, not for each route tried.
    const params: Record<string, string> = {};
    route.segments.forEach((segment, i) => {
      if ("param" in segment)
        params[segment.param] = parts[i]!.includes("%") ? decodeURIComponent(parts[i]!) : parts[i]!;
    });
    return { route, params };
  }
  return null;
}

export interface FrontOptions {
  routes: readonly V1Route[];
  next: NextHandler;
}

/** Security headers of every /v1 answer (next.config.mjs adds the same to the ones Next serves). */
const V1_HEADERS: readonly [string, string][] = Object.entries({
  ...SECURITY_HEADERS.everyAnswer,
  ...SECURITY_HEADERS.json,
});
const HSTS: readonly [string, string][] = Object.entries(SECURITY_HEADERS.https);

/** The request listener of the front. */
export function frontListener({ routes, next }: FrontOptions) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    dropUntrustedForwarding(req);
    const method = req.method ?? "";
    const target = toOriginForm(req);
    if (target) return answer(req, res, target);
    const url = req.url ?? "/";
    const verdict = verdictOf(method, url);
    if (verdict) return answer(req, res, verdict);
    if (!url.startsWith("/v1/")) return void next(req, res);
    const q = url.indexOf("?");
    const found = match(routes, q === -1 ? url : url.slice(0, q));
    // A trailing slash (Next's 308) or anything the table does not know: Next decides, as under `next start`.
    if (!found) return void next(req, res);
    const handler = found.route.handlers[method];
    if (!handler) return answer(req, res, { kind: "refuse", error: methodNotAllowed(found.route.allow) });
    // The access log line and the metrics are written by the route's edge (lib/api/edge.ts), as under `next start`.
    if (!readsInFull(req, method)) return void dispatch(req, res, method, url, handler, found.params, null);
    void readBody(req).then((bytes) => {
      if (bytes) void dispatch(req, res, method, url, handler, found.params, bytes);
    });
  };
}

/**
 * Whether the front reads the request's body before calling the handler: a body whose Content-Length is within
 * the limit (every integrator's JSON). One read into one buffer costs less than a Web stream fed from the node:http
 * stream (bench/profile.ts). A larger or unannounced (chunked) body is streamed, so a body refused by its length is
 * never buffered.
 */
function readsInFull(req: http.IncomingMessage, method: string): boolean {
  if (method === "GET" || method === "HEAD") return false;
  const length = req.headers["content-length"];
  if (length === undefined || req.headers["transfer-encoding"] !== undefined) return false;
  const n = Number(length);
  return Number.isSafeInteger(n) && n >= 0 && n <= MAX_BODY_BYTES;
}

/** The whole body (node:http ends it at its Content-Length), or null when the client went away first. */
function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once("error", () => resolve(null));
    req.once("close", () => {
      if (!req.complete) resolve(null);
    });
  });
}

/**
 * The Web Request of a node:http request: its body as the bytes the front read (`readsInFull`, in REQUEST_BODIES),
 * or streamed, read only if the handler reads it. Only a streamed body gets an abort signal of ours, to stop its
 * reading when the client goes away; without a stream there is nothing to abandon (the signal cost ~2% of a GET:
 * bench/profile.ts).
 */
function webRequest(
  req: http.IncomingMessage,
  method: string,
  url: string,
  signal: AbortSignal | undefined,
  bytes: Buffer | null,
): Request {
  const proto = String(req.headers["x-forwarded-proto"] ?? "").includes("https") ? "https" : "http";
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  // A body read in full is handed over in REQUEST_BODIES, not as the Request's body: a Request made with a body
  // builds a stream for it (about 16 µs of CPU per request on Node 20) that readJsonBody would never read.
  const streamed = !bytes && method !== "GET" && method !== "HEAD";
  const init = {
    method,
    headers,
    signal,
    body: streamed ? bodyStream(req) : null,
    duplex: "half",
  } as RequestInit;
  let request: Request;
  try {
    // The Request parses the URL itself (no URL of ours first: a second parse per request).
    request = new Request(`${proto}://${req.headers.host ?? "localhost"}${url}`, init);
  } catch {
    // A Host header that is not a host: the route only reads the path and query. (The URL is checked before the
    // body is touched, so the same init serves.)
    request = new Request(new URL(url, `${proto}://localhost`).href, init);
  }
  if (bytes) REQUEST_BODIES.set(request, bytes);
  FRONT_REQUESTS.add(request);
  return request;
}

/**
 * The request body as a Web stream, read only as the handler reads it (a body refused by its Content-Length is never
 * buffered). What the handler leaves unread is discarded once the answer is sent (`drain`), so the client can finish
 * sending and read the answer, and a keep-alive connection stays usable.
 */
function bodyStream(req: http.IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const onData = (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      };
      req.on("data", onData);
      req.once("end", () => controller.close());
      req.once("error", (err) => controller.error(err));
      drains.set(req, () => req.off("data", onData));
      req.pause();
    },
    pull() {
      req.resume();
    },
    cancel() {
      drain(req);
    },
  });
}

const drains = new WeakMap<http.IncomingMessage, () => void>();

/** Discards what is left of a request body. */
function drain(req: http.IncomingMessage): void {
  if (req.complete) return;
  drains.get(req)?.();
  drains.delete(req);
  req.resume();
}

/** Calls the handler and writes its Response; resolves to the answer's request id once it is sent (or abandoned). */
async function dispatch(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  method: string,
  url: string,
  handler: RouteHandler,
  params: Record<string, string>,
  bytes: Buffer | null,
): Promise<string | null> {
  // A handler may stop reading a streamed body when the client goes away; a body read in full has nothing to abandon.
  const aborted = method === "GET" || method === "HEAD" || bytes ? null : new AbortController();
  // A body the handler did not read (refused before reading): discarded, so the connection stays usable.
  res.once("finish", () => drain(req));
  res.once("close", () => {
    if (!res.writableFinished) aborted?.abort();
    drain(req);
  });
  let response: Response;
  try {
    response = await handler(webRequest(req, method, url, aborted?.signal, bytes), {
      params: Promise.resolve(params),
    });
  } catch (err) {
    // withEdge answers every error a route throws; this is a bug in the front or the module itself.
    const header = req.headers["x-request-id"];
    const requestId = requestIdFrom(Array.isArray(header) ? header[0] : header);
    console.error(JSON.stringify({ level: "error", requestId, url, error: String((err as Error)?.stack ?? err) }));
    const { status, headers, body } = edgeAnswer({ kind: "refuse", error: internalError() }, requestId);
    if (!res.headersSent) res.writeHead(status, headers).end(body);
    return requestId;
  }
  for (const [k, v] of V1_HEADERS) res.setHeader(k, v);
  if (req.headers["x-forwarded-proto"] === "https") for (const [k, v] of HSTS) res.setHeader(k, v);
  const cookies = response.headers.getSetCookie();
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") res.setHeader(key, value);
  });
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  res.statusCode = response.status;
  const requestId = response.headers.get("x-request-id");
  // An answer of the route factories: its JSON text as they built it, not read back from the Response's stream.
  const text = RESPONSE_TEXTS.get(response);
  if (text !== undefined && method !== "HEAD") {
    res.end(text);
    return requestId;
  }
  const body = response.body;
  if (!body || method === "HEAD") {
    void body?.cancel();
    res.end();
    return requestId;
  }
  await writeBody(res, body);
  return requestId;
}

/** Streams `body` to `res`; a body of one chunk (every JSON answer) goes out in one write with its Content-Length. */
async function writeBody(res: http.ServerResponse, body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  try {
    let chunk = await reader.read();
    if (chunk.done) return void res.end();
    let next = await reader.read();
    if (next.done) return void res.end(chunk.value);
    for (;;) {
      if (res.destroyed) return void (await reader.cancel());
      if (!res.write(chunk.value)) await new Promise<void>((r) => res.once("drain", r).once("close", r));
      if (next.done) break;
      chunk = next as ReadableStreamReadResult<Uint8Array> & { done: false };
      next = await reader.read();
    }
    res.end();
  } catch (err) {
    // The stream failed halfway: the status is sent, so the connection is cut rather than the answer completed.
    console.error(JSON.stringify({ level: "error", msg: "response stream failed", error: String(err) }));
    res.destroy();
  }
}
