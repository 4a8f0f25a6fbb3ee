import { openApiDocument } from "@/lib/api/openapi";

export const dynamic = "force-static";

export function GET() {
  return new Response(openApiDocument(), { headers: { "content-type": "application/json" } });
}
