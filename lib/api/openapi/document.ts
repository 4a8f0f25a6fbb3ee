import "server-only";
import { z } from "zod";
import { configuredOrigin } from "@/lib/config";
import * as schemaModules from "../schemas/all";
import { HEADER_COMPONENTS } from "./headers";
import { TAGS } from "./operation";
import { paths } from "./paths";
import { webhooks } from "./webhooks";

/**
 * The one place where the OpenAPI 3.1 document is assembled: its components are the zod schemas the routes
 * validate with (every schema with a `.meta({ id })` in lib/api/schemas/*), its operations come from
 * the openapi.ts beside each route file under app/v1 (collected by ./paths.ts), its headers from ./headers.ts, its
 * webhooks from ./webhooks.ts.
 */

/** The origin a document built outside a request names (the lint, tests): NEXTAUTH_URL's, else a local one. */
export const DEFAULT_ORIGIN = "http://localhost:3000";

let cached: { head: string; tail: string } | undefined;

/**
 * The schemas of these modules that carry an id, in a registry of their own. Not zod's global registry: Next loads
 * lib/api/schemas once per bundle layer (route handlers, pages), and every copy registers the same ids there, which
 * z.toJSONSchema refuses as duplicates ("Duplicate schema id") once a page and a route have both run in a process.
 */
function ownSchemas() {
  const registry = z.registry<{ id: string }>();
  // Exported schemas, and those in an exported table of them (WEBHOOK_EVENTS).
  const visit = (value: unknown, depth: number) => {
    if (value instanceof z.ZodType) {
      const id = z.globalRegistry.get(value)?.id;
      if (id && !registry.has(value)) registry.add(value, { id });
    } else if (depth > 0 && value && typeof value === "object") {
      for (const inner of Object.values(value)) visit(inner, depth - 1);
    }
  };
  for (const schemaModule of Object.values(schemaModules)) visit(schemaModule, 2);
  return registry;
}

function build() {
  const { schemas } = z.toJSONSchema(ownSchemas(), {
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
