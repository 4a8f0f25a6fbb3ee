import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { openApiDocument } from "@/lib/api/openapi/document";
import { problems } from "@/lib/api/openapi/problems";
import { ERROR_CATALOGUE, statusOf, type ErrorCode } from "@/lib/errors";
import { v1RouteFiles } from "../support/v1-route-files";

type Operation = {
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: { properties?: { code?: { enum?: string[] } } } }> }
  >;
};
const doc = JSON.parse(openApiDocument()) as { paths: Record<string, Record<string, Operation>> };
const byPattern = (a: [string, string[]], b: [string, string[]]) => a[0].localeCompare(b[0]);

describe("the OpenAPI document and app/v1", () => {
  test("every route file's exported method is documented, and every documented operation has its route file and export", () => {
    // The document does not describe itself, nor the /me routes' CORS preflight (OPTIONS, lib/api/cors.ts): a browser
    // sends it, no integrator calls it.
    const served = v1RouteFiles()
      .filter(([pattern]) => pattern !== "openapi.json")
      .map(([pattern, methods]): [string, string[]] => [pattern, methods.filter((m) => m !== "OPTIONS")]);
    const documented = Object.entries(doc.paths).map(
      ([p, operations]) =>
        [
          p.replace(/^\/v1\//, "").replace(/\{(\w+)\}/g, ":$1"),
          Object.keys(operations)
            .map((m) => m.toUpperCase())
            .sort(),
        ] as [string, string[]],
    );
    assert.deepEqual(documented.sort(byPattern), served.sort(byPattern));
  });

  test("every error response lists only codes the catalogue sends with that status, and describes each", () => {
    for (const [p, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const codes = response.content?.["application/problem+json"]?.schema.properties?.code?.enum ?? [];
          assert.ok(codes.length > 0, `${method} ${p} ${status} names its codes`);
          for (const code of codes) {
            assert.equal(statusOf(code as ErrorCode), Number(status), `${method} ${p}: ${code} under ${status}`);
            assert.ok(
              response.description.includes(ERROR_CATALOGUE[code as ErrorCode].meaning),
              `${method} ${p}: ${code} described`,
            );
          }
        }
      }
    }
  });
});

describe("problems", () => {
  test("groups codes by their catalogue status, keeps each once, and adds a code's note to its meaning", () => {
    const responses = problems([
      "not_found",
      "validation_failed",
      ["not_found", "of this operation"],
      "customer_not_found",
    ]) as Record<string, Operation["responses"][string]>;
    assert.deepEqual(Object.keys(responses), ["400", "404"]);
    assert.deepEqual(responses["404"]!.content!["application/problem+json"]!.schema.properties!.code!.enum, [
      "not_found",
      "customer_not_found",
    ]);
    assert.equal(
      responses["404"]!.description,
      `\`not_found\`: ${ERROR_CATALOGUE.not_found.meaning} (of this operation). \`customer_not_found\`: ${ERROR_CATALOGUE.customer_not_found.meaning}.`,
    );
  });
});
