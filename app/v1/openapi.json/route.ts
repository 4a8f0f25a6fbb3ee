import { withEdge } from "@/lib/api/edge";
import { openApiDocument } from "@/lib/api/openapi/document";
import { appOrigin } from "@/lib/staff/request-origin";

/**
 * The OpenAPI 3.1 document. Rendered per request (from a cached string) so that, like every /v1 response, it carries
 * x-request-id, and so that its absolute server URL is this deployment's origin: NEXTAUTH_URL's when configured, else
 * the host the client addressed (trusted as lib/staff/request-origin.ts decides). The answer is `no-store` like every
 * /v1 answer, so no cache can hand one host's document to another.
 */
export function GET(req: Request) {
  return withEdge(req, async ({ headers }) => {
    headers.set("content-type", "application/json");
    return new Response(openApiDocument(appOrigin(req.headers) ?? undefined), { headers });
  });
}
