import "server-only";
import { db } from "@/lib/db/client";
import { retryRead, transactionWithRetry, type TransactionOptions } from "@/lib/db/outage";
import { parseWith, replyToResponse, TX_OPTIONS, urlInputs, withEdge, type SchemaLike } from "@/lib/api/edge";
import { readJsonBody } from "@/lib/api/json-body";
import { crossSiteRequest } from "@/lib/errors";
import { type StaffContext, type StaffOperation, type StaffQuery } from "./authz";
import { requireStaff } from "./session";
import { appOrigin } from "./request-origin";
import { requestedVersion } from "./versions";

/**
 * The dashboard's JSON routes (app/api/staff/**): session auth, the role check, zod validation, one transaction,
 * problem+json errors — the same edge as /v1, with a staff session instead of an api-key. A route names one
 * operation (lib/staff/operations/*) or query (lib/staff/queries/*), which carries its permission: the route
 * checks it before it reads the body, and the operation checks it again when called, so neither layer alone
 * guards a write and the two cannot name different permissions.
 * CSRF: every write must come from the app's own pages — its Origin is the app's origin, or, without Origin, its
 * Sec-Fetch-Site is same-origin; a request with neither is refused too (browsers send one of them on every
 * non-GET). That covers body-less POSTs (webhook re-send), which the JSON-only bodies and next-auth's SameSite=Lax
 * cookie alone would not.
 */

type Ctx = { params: Promise<Record<string, string>> };

/** What a route hands its operation or query, besides the staff context: path parameters, the URL, the parsed body. */
export interface StaffRequest<B> {
  staff: StaffContext;
  params: Record<string, string>;
  url: URL;
  body: B;
  /** The version an edit was made from (If-Match; lib/staff/versions.ts), undefined when none was sent. */
  version: string | undefined;
}

/** A GET answered with `query(db, staff, ...args(req))` as JSON, 200. */
export function staffRead<A extends [] | unknown[]>(
  query: StaffQuery<A>,
  options: { args: (req: StaffRequest<undefined>) => A },
) {
  return (req: Request, ctx: Ctx) =>
    withEdge(req, async (edge) => {
      const params = await urlInputs(req, ctx);
      // Reads change nothing: a lost connection is retried once (lib/db/outage.ts); an outage is a 503 from withEdge.
      const json = await retryRead(async () => {
        const staff = await requireStaff(params.programId ?? "", query.permission);
        return query(
          await db(),
          staff,
          ...options.args({ staff, params, url: new URL(req.url), body: undefined, version: undefined }),
        );
      });
      return replyToResponse({ status: 200, json }, edge);
    });
}

/** Throws 403 `cross_site_request` unless the request comes from the app's own origin. */
export function requireSameOrigin(req: Request): void {
  const origin = req.headers.get("origin");
  if (origin !== null) {
    if (origin !== appOrigin(req.headers)) throw crossSiteRequest();
    return;
  }
  if (req.headers.get("sec-fetch-site") !== "same-origin") throw crossSiteRequest();
}

/**
 * A write answered with `operation(tx, staff, ...args(req))` as JSON, run in one transaction; `status` defaults to
 * 200, `transaction` to TX_OPTIONS (a write that may run longer, a test clock's advance, says so).
 */
export function staffWrite<A extends [] | unknown[], B = undefined>(
  operation: StaffOperation<A>,
  options: {
    body?: SchemaLike<B>;
    status?: number;
    args: (req: StaffRequest<NoInfer<B>>) => A;
    transaction?: TransactionOptions;
  },
) {
  return (req: Request, ctx: Ctx) =>
    withEdge(req, async (edge) => {
      requireSameOrigin(req);
      const params = await urlInputs(req, ctx);
      const staff = await retryRead(() => requireStaff(params.programId ?? "", operation.permission));
      const body = options.body ? parseWith(options.body)((await readJsonBody(req)).value) : (undefined as B);
      const version = requestedVersion(req.headers);
      const args = options.args({ staff, params, url: new URL(req.url), body, version });
      const database = await db();
      const json = await transactionWithRetry(
        database,
        (tx) => operation(tx, staff, ...args),
        options.transaction ?? TX_OPTIONS,
      );
      return replyToResponse({ status: options.status ?? 200, json }, edge);
    });
}
