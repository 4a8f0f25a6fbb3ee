import "server-only";
import { z } from "zod";
import "./schemas/all"; // registers every schema with an id in zod's global registry
import { paths } from "./openapi-paths";

/**
 * The one place where the OpenAPI 3.1 document is assembled: its components are the zod schemas the routes
 * validate with (every schema with a `.meta({ id })` in lib/api/schemas/*), its operations come from ./openapi-paths.ts.
 */

let cached: string | undefined;

export function openApiDocument(): string {
  if (cached) return cached;
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
  cached = JSON.stringify({
    openapi: "3.1.0",
    info: {
      title: "Loyalty Program API",
      version: "1.0.0",
      description:
        "Public /v1 API for integrators. Authenticate every call with the `api-key` header. On any path, a malformed " +
        "percent-encoding is 400 `invalid_path`, an unknown path 404 `not_found`, and a method the path does not serve " +
        "405 `method_not_allowed` with `Allow`; OPTIONS answers 204 with `Allow`.",
    },
    servers: [{ url: "/" }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "api-key" },
        customerToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "From Get a customer token.",
        },
      },
    },
  });
  return cached;
}
