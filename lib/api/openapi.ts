import "server-only";
import { z } from "zod";
import { configuredOrigin } from "@/lib/config";
import "./schemas/all"; // registers every schema with an id in zod's global registry
import { HEADER_COMPONENTS } from "./openapi-headers";
import { TAGS } from "./openapi-operations";
import { paths } from "./openapi-paths";
import { webhooks } from "./openapi-webhooks";

/**
 * The one place where the OpenAPI 3.1 document is assembled: its components are the zod schemas the routes
 * validate with (every schema with a `.meta({ id })` in lib/api/schemas/*), its operations come from
 * ./openapi-paths.ts, its headers from ./openapi-headers.ts, its webhooks from ./openapi-webhooks.ts.
 */

/** The origin a document built outside a request names (the lint, tests): NEXTAUTH_URL's, else a local one. */
export const DEFAULT_ORIGIN = "http://localhost:3000";

let cached: { head: string; tail: string } | undefined;

function build() {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: "draft-2020-12",
    io: "input",
    uri: (id) => `#/components/schemas/${id}`,
  });
  const components = Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _s, $id: _i, ...rest } = schema as Record<string, unknown>;
      return [id, rest];
    }),
  );
  const doc = {
    openapi: "3.1.0",
    info: {
      title: "Loyalty Program API",
      version: "1.0.0",
      description:
        "Public /v1 API for integrators. Authenticate every call with the `api-key` header (the `/me` routes: a customer " +
        "token). Every answer carries `x-request-id`; every answer after authentication the `RateLimit-*` headers. Errors " +
        "are RFC 9457 problem details whose `code` is one of those listed for the status. On any path, a malformed " +
        "percent-encoding is 400 `invalid_path`, an unknown path 404 `not_found`, and a method the path does not serve " +
        "405 `method_not_allowed` with `Allow`; OPTIONS answers 204 with `Allow`.",
    },
    servers: [{ url: "__ORIGIN__", description: "This deployment." }],
    security: [{ apiKey: [] }],
    tags: TAGS,
    paths,
    webhooks: webhooks(),
    components: {
      schemas: components,
      headers: HEADER_COMPONENTS,
      securitySchemes: {
        apiKey: {
          type: "apiKey",
          in: "header",
          name: "api-key",
          description: "The program's API key (dashboard: API keys).",
        },
        customerToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "From Get a customer token.",
        },
      },
    },
  };
  const [head, tail] = JSON.stringify(doc).split('"__ORIGIN__"') as [string, string];
  return { head, tail };
}

/**
 * The document as JSON text, its server URL `origin` (the deployment's public origin: see app/v1/openapi.json).
 * Built once; only the server URL differs between calls.
 */
export function openApiDocument(origin: string = configuredOrigin() ?? DEFAULT_ORIGIN): string {
  cached ??= build();
  return `${cached.head}${JSON.stringify(origin)}${cached.tail}`;
}
