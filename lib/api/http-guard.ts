import http from "node:http";
import { edgeAnswer, judgeV1, requestIdFrom } from "./edge-guard";
import { methodNotAllowed } from "@/lib/errors";

/**
 * The one place for TRACE, a method the fetch API forbids: Next cannot even build a Request for it, so neither
 * proxy.ts nor a route ever sees one, and Next answers 500 with a stack trace in the log. It is answered here, on
 * the node:http server itself, before Next is called: under /v1 with edge-guard's verdict (404 for an unknown
 * path, else 405 with Allow), elsewhere with a 405 problem too. The other forbidden methods never reach a request
 * handler: node:http answers TRACK with 400 (its parser does not know it) and closes the socket of a CONNECT when
 * no "connect" listener exists.
 *
 * Installed once per server process by instrumentation.ts; a front server of our own would call edge-guard
 * directly instead.
 */

/** Methods `new Request()` refuses (Fetch standard, "forbidden method") that node:http hands to a handler. */
const FETCH_FORBIDDEN = new Set(["TRACE"]);

/** What the dashboard and the other non-/v1 pages serve, for the Allow header of a refusal there. */
const PAGES_ALLOW = "GET, HEAD, OPTIONS, POST";

let installed = false;

export function installForbiddenMethodGuard(): void {
  if (installed) return;
  installed = true;
  const emit = http.Server.prototype.emit;
  // Every http.Server (Next's included, created before or after this) looks emit up on this prototype.
  http.Server.prototype.emit = function guardedEmit(this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      if (req.method && FETCH_FORBIDDEN.has(req.method)) {
        answer(req, res);
        return true;
      }
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof emit;
}

function answer(req: http.IncomingMessage, res: http.ServerResponse) {
  const pathname = (req.url ?? "/").split("?")[0]!;
  const verdict = judgeV1(req.method!, pathname);
  const header = req.headers["x-request-id"];
  const answer = edgeAnswer(
    verdict.kind === "pass" ? { kind: "refuse", error: methodNotAllowed(PAGES_ALLOW) } : verdict,
    requestIdFrom(Array.isArray(header) ? header[0] : header),
  );
  // The request body, if any, is not read: drain it so that a keep-alive connection stays usable.
  req.resume();
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body ?? undefined);
}
