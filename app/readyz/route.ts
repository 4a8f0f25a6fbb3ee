// GET /readyz: 200 when the database answers and every shipped migration is applied, else 503 problem+json.
import { problemResponse } from "@/lib/api/problem";
import { requestIdFrom } from "@/lib/api/edge-guard";
import { readiness } from "@/lib/ops/readiness";

const BODY = JSON.stringify({ status: "ok" });

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const headers = new Headers({ "content-type": "application/json", "cache-control": "no-store" });
  const problem = await readiness();
  if (!problem) return new Response(BODY, { headers });
  const requestId = requestIdFrom(req.headers.get("x-request-id"));
  headers.set("x-request-id", requestId);
  return problemResponse(problem, requestId, headers);
}
