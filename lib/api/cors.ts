import "server-only";
import type { RawQueries } from "@/lib/db/types";
import { hotDb } from "@/lib/db/client";
import { retryRead } from "@/lib/db/outage";
import { isUuid } from "@/lib/ids";
import {
  IDEMPOTENCY_KEY,
  IDEMPOTENT_REPLAYED,
  RATE_LIMIT,
  RATE_LIMIT_LIMIT,
  RATE_LIMIT_POLICY,
  RATE_LIMIT_REMAINING,
  RATE_LIMIT_RESET,
  REQUEST_ID,
  RETRY_AFTER,
} from "@/lib/header-names";
import { withEdge, type Edge } from "./edge";

/**
 * The one place for CORS (API.md §1 "CORS"): only the customer-token routes (/me) answer it, and only for an origin
 * the program in the path allows (Program.allowedOrigins, lib/domain/web-origins.ts; dashboard Settings, or
 * `loyalty program update --allowed-origins`). The api-key routes never do: a browser must never hold an API key,
 * so no page of another origin can read their answers.
 *
 * Every /me path holds its program (`/v1/programs/{programId}/me…`), so the preflight, which carries no token, is
 * judged for that program too: the answer to an allowed origin carries the methods and headers, to any other
 * origin none, and the browser then never sends the request. The actual request is judged again the same way, and
 * its answer (an error too, so a widget can read a 401 and fetch a new token) carries `Access-Control-Allow-Origin`
 * only for an allowed origin. Requests without an `Origin` header (servers, curl) cost nothing more.
 */

/** The request headers a widget may send (the token, a JSON body, its own Idempotency-Key, its request id). */
const ALLOWED_HEADERS = ["Authorization", "Content-Type", IDEMPOTENCY_KEY, REQUEST_ID].join(", ");
/** The answer's headers a widget may read, beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS = [
  REQUEST_ID,
  IDEMPOTENT_REPLAYED,
  RETRY_AFTER,
  RATE_LIMIT_LIMIT,
  RATE_LIMIT_REMAINING,
  RATE_LIMIT_RESET,
  RATE_LIMIT_POLICY,
  RATE_LIMIT,
].join(", ");
/** How long a browser may reuse a preflight's answer: an origin removed from the settings stops preflights by then. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Whether the program in the path (any letter case) allows `origin`: one primary-key lookup. */
async function allows(database: RawQueries, programIdInPath: string | undefined, origin: string): Promise<boolean> {
  const programId = (programIdInPath ?? "").toLowerCase();
  if (!isUuid(programId) || origin.length > 2048) return false;
  const [row] = await database.$queryRawUnsafe<{ ok: boolean }[]>(
    `SELECT $2 = ANY("allowedOrigins") AS ok FROM "Program" WHERE id = $1::uuid`,
    programId,
    origin,
  );
  return row?.ok === true;
}

/**
 * On a /me answer: `Vary: Origin` when the request has an Origin, and `Access-Control-Allow-Origin` (that exact
 * origin) with the readable headers when the path's program allows it. Runs before authentication, so refusals
 * carry it too.
 */
export async function applyCors(req: Request, params: Record<string, string>, edge: Edge, database: RawQueries) {
  const origin = req.headers.get("origin");
  if (origin === null) return;
  edge.headers.append("Vary", "Origin");
  if (!(await retryRead(() => allows(database, params.programId, origin)))) return;
  edge.headers.set("Access-Control-Allow-Origin", origin);
  edge.headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
}

type RouteContext = { params: Promise<Record<string, string>> };

/**
 * The OPTIONS handler of a /me route serving `methods`: 204 with `Allow` (as the edge guard answers OPTIONS on every
 * other route), and for a preflight from an origin the program allows, the CORS headers that let the browser send
 * the request. The edge guard (lib/api/edge-guard.ts) hands OPTIONS to a route that exports it.
 */
export function corsPreflight(methods: readonly string[]) {
  const served = [...new Set([...methods, ...(methods.includes("GET") ? ["HEAD"] : [])])].sort();
  const allow = [...served, "OPTIONS"].sort().join(", ");
  return (req: Request, ctx: RouteContext): Promise<Response> =>
    withEdge(req, async (edge) => {
      edge.headers.set("Allow", allow);
      const origin = req.headers.get("origin");
      const asked = req.headers.get("access-control-request-method");
      if (origin !== null) {
        edge.headers.append("Vary", "Origin");
        const params = await ctx.params;
        if (
          asked !== null &&
          served.includes(asked) &&
          (await retryRead(async () => allows((await hotDb()).raw, params.programId, origin)))
        ) {
          edge.headers.set("Access-Control-Allow-Origin", origin);
          edge.headers.set("Access-Control-Allow-Methods", served.join(", "));
          edge.headers.set("Access-Control-Allow-Headers", ALLOWED_HEADERS);
          edge.headers.set("Access-Control-Max-Age", String(PREFLIGHT_MAX_AGE_SECONDS));
        }
      }
      return new Response(null, { status: 204, headers: edge.headers });
    });
}
