import "server-only";
import type http from "node:http";
import { edgeAnswer, isV1Path, judgeV1, malformedPath, requestIdFrom, type EdgeVerdict } from "./edge-guard";
import { invalidPath, methodNotAllowed } from "@/lib/errors";
import { config } from "@/lib/config";
import { interceptRequests } from "./front-channels";

/**
 * The one place where edge-guard's verdicts are applied: on the node:http server itself, before Next sees the request.
 * Next cannot be asked to do it: it answers a malformed percent-encoding, an unknown /v1 path and an unexported method
 * before any of our code runs, and for TRACE (a method the fetch API forbids) it cannot even build a Request, so
 * neither proxy.ts nor a route ever sees one and Next answers 500 with a stack trace. Here the cost on the hot path is
 * a prefix test and a match against a few patterns (see the figures in bench/README.md); proxy.ts would cost Next's
 * whole middleware pipeline on every /v1 request.
 *
 * The other forbidden methods never reach a request handler: node:http answers TRACK with 400 (its parser does
 * not know it) and closes the socket of a CONNECT when no "connect" listener exists.
 *
 * Installed by instrumentation.ts for `next start` and `next dev` only. The production front (server/front.ts, what
 * `npm start` runs) calls verdictOf and answer directly on its own server instead.
 */

/** What the dashboard and the other non-/v1 pages serve, for the Allow header of a TRACE refused there. */
const PAGES_ALLOW = "GET, HEAD, OPTIONS, POST";

/** Judges every request of every node:http server of the process (./front-channels.ts `interceptRequests`). */
export function installEdgeGuard(): void {
  interceptRequests((req, res) => {
    dropUntrustedForwarding(req);
    const verdict = toOriginForm(req) ?? verdictOf(req.method ?? "", req.url ?? "/");
    if (!verdict) return false;
    answer(req, res, verdict);
    return true;
  });
}

/**
 * Without a trusted proxy (TRUST_PROXY=0) no client's X-Forwarded-Proto is believed: it is removed before anything
 * reads it, so a client cannot turn HSTS on (next.config.mjs's rule, the front's /v1 answers, securePage) nor make
 * the app think it is served over https. Called first on every request, by the guard and by the front.
 */
export function dropUntrustedForwarding(req: http.IncomingMessage): void {
  if (req.headers["x-forwarded-proto"] === undefined || config().TRUST_PROXY > 0) return;
  delete req.headers["x-forwarded-proto"];
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i]!.toLowerCase() === "x-forwarded-proto") raw.splice(i, 2);
}

/**
 * An absolute-form request target (`GET http://host/v1/…`, RFC 9112 §3.2.2, which a server must accept) rewritten
 * in place to its origin form (`/v1/…`), so it is served like any other request — Next would answer a 308 to the
 * same URL. Its authority must be the Host header's (RFC 9112 §3.2.2 lets it override Host; we never let two names
 * of the host disagree): otherwise 400 `invalid_path`. Null when the request may go on.
 */
export function toOriginForm(req: http.IncomingMessage): Exclude<EdgeVerdict, { kind: "pass" }> | null {
  const url = req.url ?? "/";
  if (url.startsWith("/")) return null;
  const absolute = /^https?:\/\/([^/?#]*)(.*)$/is.exec(url);
  if (!absolute) return null; // `*` (OPTIONS) or garbage: as before
  const [, authority, rest] = absolute as unknown as [string, string, string];
  if (authority.toLowerCase() !== (req.headers.host ?? "").toLowerCase()) {
    return { kind: "refuse", error: invalidPath("The request target's host is not the Host header's.") };
  }
  req.url = rest.startsWith("/") ? rest : `/${rest}`;
  return null;
}

/** The verdict to answer before any route or page runs, or null to hand the request on (server/front.ts too). */
export function verdictOf(method: string, url: string): Exclude<EdgeVerdict, { kind: "pass" }> | null {
  const trace = method === "TRACE";
  if (!trace && !url.startsWith("/v1")) {
    // Outside /v1 only a malformed path is refused here (one indexOf in the common case): Next would answer 500.
    if (!url.includes("%")) return null;
    const query = url.indexOf("?");
    return malformedPath(query === -1 ? url : url.slice(0, query)) ? { kind: "refuse", error: invalidPath() } : null;
  }
  const query = url.indexOf("?");
  const pathname = query === -1 ? url : url.slice(0, query);
  const verdict = judgeV1(method, pathname);
  if (verdict.kind !== "pass") return verdict;
  // TRACE outside /v1: Next would answer 500.
  return trace && !isV1Path(pathname) ? { kind: "refuse", error: methodNotAllowed(PAGES_ALLOW) } : null;
}

/** Answers a verdict on node:http. */
export function answer(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  verdict: Exclude<EdgeVerdict, { kind: "pass" }>,
): void {
  const header = req.headers["x-request-id"];
  const { status, headers, body } = edgeAnswer(verdict, requestIdFrom(Array.isArray(header) ? header[0] : header));
  // The request body, if any, is not read: drain it so that a keep-alive connection stays usable.
  req.resume();
  res.writeHead(status, headers);
  res.end(body ?? undefined);
}
