import "server-only";
import { timingSafeEqual } from "node:crypto";
import { config } from "@/lib/config";
import { db } from "@/lib/db/client";
import { invalidMetricsToken, notFound, type AppError } from "@/lib/errors";
import { problemResponse } from "./problem";
import { requestIdFrom } from "./edge-guard";
import { METRICS_CONTENT_TYPE, scrape, watchOutbox } from "@/lib/ops/metrics";

/**
 * GET /metrics (app/metrics/route.ts). Unset METRICS_TOKEN: 404 `not_found`, as if the endpoint did not exist;
 * a missing or wrong `Authorization: Bearer` token: 401 `unauthorized` (compared in constant time).
 */

/** The outbox backlog, read at scrape time. The pending deliveries are found through the (status, nextAttemptAt) index. */
const BACKLOG_SQL = `SELECT count(*)::int AS pending,
  COALESCE(EXTRACT(EPOCH FROM now() - min("createdAt")), 0)::float8 AS "oldestAgeSeconds"
  FROM "Delivery" WHERE status = 'pending'`;

let watching = false;

function authorize(header: string | null): AppError | null {
  const token = config().METRICS_TOKEN;
  if (!token) return notFound("endpoint");
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? "")?.[1]?.trim() ?? "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : invalidMetricsToken();
}

export async function metricsResponse(req: Request): Promise<Response> {
  const headers = new Headers({ "cache-control": "no-store" });
  const refused = authorize(req.headers.get("authorization"));
  if (refused) {
    if (refused.status === 401) headers.set("www-authenticate", 'Bearer realm="metrics"');
    const requestId = requestIdFrom(req.headers.get("x-request-id"));
    headers.set("x-request-id", requestId);
    return problemResponse(refused, requestId, headers);
  }
  if (!watching) {
    watching = true;
    watchOutbox(async () => {
      const [row] = await (await db()).$queryRawUnsafe<{ pending: number; oldestAgeSeconds: number }[]>(BACKLOG_SQL);
      return row ?? { pending: 0, oldestAgeSeconds: 0 };
    });
  }
  headers.set("content-type", METRICS_CONTENT_TYPE);
  return new Response(await scrape(), { headers });
}
