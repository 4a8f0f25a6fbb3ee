import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { openApiDocument } from "@/lib/api/openapi/document";

/**
 * Every example in the OpenAPI document (request bodies, responses, webhooks, parameters and headers) is valid
 * against its schema under JSON Schema 2020-12, `$ref`s resolved to the document's components: an example that
 * drifts from its schema (or a schema from the examples the dashboard's reference shows) fails here.
 */

type Json = Record<string, unknown>;
const doc = JSON.parse(openApiDocument()) as Json & {
  components: { schemas: Json; headers: Record<string, Json> };
  paths: Record<string, Record<string, Json>>;
  webhooks: Record<string, Record<string, Json>>;
};

const COMPONENTS = "urn:loyalty:components";
/** `#/components/schemas/X` → the same schema in a registered document of its own. */
function rebase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebase);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" ? v.replace("#/components/schemas/", `${COMPONENTS}#/$defs/`) : rebase(v),
    ]),
  );
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: COMPONENTS, $defs: rebase(doc.components.schemas) as Json });

/** Every `{ schema, examples }` and `{ schema, example }` pair in the document, named by where it is. */
function examplePairs(): { where: string; schema: unknown; examples: [string, unknown][] }[] {
  const found: { where: string; schema: unknown; examples: [string, unknown][] }[] = [];
  const walk = (node: unknown, where: string) => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}[${i}]`));
    const n = node as Json;
    if (n.schema && typeof n.schema === "object" && n.examples && !Array.isArray(n.examples)) {
      const entries = Object.entries(n.examples as Record<string, { value: unknown }>).map(
        ([name, e]) => [name, e.value] as [string, unknown],
      );
      found.push({ where, schema: n.schema, examples: entries });
    }
    if (n.schema && typeof n.schema === "object" && "example" in n) {
      found.push({ where, schema: n.schema, examples: [["example", n.example]] });
    }
    for (const [k, v] of Object.entries(n)) if (k !== "examples" && k !== "schema") walk(v, `${where}/${k}`);
  };
  walk(doc.paths, "#/paths");
  walk(doc.webhooks, "#/webhooks");
  walk(doc.components.headers, "#/components/headers");
  return found;
}

describe("the OpenAPI document's examples", () => {
  const pairs = examplePairs();

  test("are found: every request body and every response with a body has some", () => {
    const operations = [...Object.values(doc.paths), ...Object.values(doc.webhooks)].flatMap((p) => Object.values(p));
    for (const op of operations) {
      const media = [
        (op.requestBody as Json | undefined)?.content,
        ...Object.values(op.responses as Record<string, Json>).map((r) => r.content),
      ].flatMap((content) => Object.values((content ?? {}) as Record<string, Json>));
      for (const m of media) {
        assert.ok(m.examples && Object.keys(m.examples).length > 0, `${String(op.operationId)} has examples`);
        assert.equal(m.example, undefined, `${String(op.operationId)}: examples, not example`);
      }
    }
    assert.ok(pairs.length > 50, `${pairs.length} example sites`);
  });

  test("each validates against its schema (JSON Schema 2020-12, formats checked)", () => {
    for (const { where, schema, examples } of pairs) {
      const validate = ajv.compile(rebase(schema) as Json);
      for (const [name, value] of examples) {
        assert.ok(validate(value), `${where} example "${name}": ${ajv.errorsText(validate.errors)}`);
      }
    }
  });

  test("a wrong example fails (the check is not vacuous)", () => {
    const validate = ajv.compile(rebase({ $ref: "#/components/schemas/PointsChange" }) as Json);
    assert.equal(validate({ points: 0 }), false);
    assert.equal(validate({ points: 1, extra: true }), false);
    assert.equal(
      validate({ points: 1, metadata: Object.fromEntries([...Array(21).keys()].map((i) => [`k${i}`, i])) }),
      false,
    );
  });
});
