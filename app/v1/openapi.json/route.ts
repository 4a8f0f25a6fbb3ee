import { withEdge } from "@/lib/api/edge";
import { openApiDocument } from "@/lib/api/openapi";

/** The OpenAPI 3.1 document. Rendered per request (from a cached string) so that, like every /v1 response, it carries x-request-id. */
export function GET(req: Request) {
  return withEdge(req, async ({ headers }) => {
    headers.set("content-type", "application/json");
    return new Response(openApiDocument(), { headers });
  });
}
