import { db } from "@/lib/db/client";
import { retryRead, transactionWithRetry } from "@/lib/db/outage";
import type { Db, Tx } from "@/lib/db/types";
import { parseWith, replyToResponse, TX_OPTIONS, withEdge, type SchemaLike } from "@/lib/api/edge";
import { readJsonBody } from "@/lib/api/json-body";
import { crossSiteRequest } from "@/lib/errors";
import { requireStaff, type Permission, type StaffContext } from "./authz";
import { appOrigin } from "./request-origin";

/**
 * The dashboard's JSON routes (app/api/staff/**): session auth, the role check for `permission`, zod
 * validation, one transaction, problem+json errors — the same edge as /v1, with a staff session instead of
 * an api-key. The operation functions check the role again, so neither layer alone guards a write.
 * CSRF: every write must come from the app's own pages — its Origin is the app's origin, or, without Origin, its
 * Sec-Fetch-Site is same-origin; a request with neither is refused too (browsers send one of them on every
 * non-GET). That covers body-less POSTs (webhook re-send), which the JSON-only bodies and next-auth's SameSite=Lax
 * cookie alone would not.
 */

type Ctx = { params: Promise<Record<string, string>> };

interface StaffRequest<B> {
  staff: StaffContext;
  params: Record<string, string>;
  url: URL;
  body: B;
}

export function staffRead(permission: Permission, run: (req: StaffRequest<undefined>, database: Db) => Promise<unknown>) {
  return (req: Request, ctx: Ctx) =>
    withEdge(req, async (edge) => {
      const params = await ctx.params;
      // Reads change nothing: a lost connection is retried once (lib/db/outage.ts); an outage is a 503 from withEdge.
      const json = await retryRead(async () => {
        const staff = await requireStaff(params.programId ?? "", permission);
        return run({ staff, params, url: new URL(req.url), body: undefined }, await db());
      });
      return replyToResponse({ status: 200, json }, edge.headers);
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

export function staffWrite<B>(options: {
  permission: Permission;
  body?: SchemaLike<B>;
  status?: number;
  run: (req: StaffRequest<NoInfer<B>>, tx: Tx) => Promise<unknown>;
}) {
  return (req: Request, ctx: Ctx) =>
    withEdge(req, async (edge) => {
      requireSameOrigin(req);
      const params = await ctx.params;
      const staff = await retryRead(() => requireStaff(params.programId ?? "", options.permission));
      const body = options.body ? parseWith(options.body)((await readJsonBody(req)).value) : (undefined as B);
      const database = await db();
      const json = await transactionWithRetry(database, (tx) => options.run({ staff, params, url: new URL(req.url), body }, tx), TX_OPTIONS);
      return replyToResponse({ status: options.status ?? 200, json }, edge.headers);
    });
}
