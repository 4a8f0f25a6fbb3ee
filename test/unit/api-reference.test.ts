import assert from "node:assert/strict";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { operationsOf, type Doc } from "@/components/api-reference/document";
import { OperationSection } from "@/components/api-reference/operation-section";
import { errorCodes, examplesOf, groupByTag, responseHeaders } from "@/components/api-reference/sections";

// The API reference renders what the document has: a hand-written document with tags, examples, headers,
// error-code enums and webhooks (the shapes lib/api/openapi/document.ts writes), and one without any of them.

const PROBLEM = { $ref: "#/components/schemas/Problem", properties: { code: { enum: ["not_found", "rate_limited"] } } };
const doc: Doc = {
  info: { title: "T", version: "1" },
  tags: [
    { name: "Rewards", description: "What customers spend points on." },
    { name: "Customers", description: "The people in a `program`." },
  ],
  paths: {
    "/c": { get: { operationId: "getC", tags: ["Customers"], summary: "Get C", responses: {} } },
    "/r": {
      post: {
        operationId: "redeem",
        tags: ["Rewards"],
        summary: "Redeem",
        description: "Spends `costPoints` <script>alert(1)</script>",
        requestBody: {
          content: { "application/json": { examples: { basic: { summary: "A note", value: { note: "hi" } } } } },
        },
        responses: {
          "201": {
            description: "Redeemed.",
            headers: {
              "x-request-id": { $ref: "#/components/headers/RequestId" },
              "RateLimit-Limit": { description: "Calls per window.", schema: { type: "integer" } },
            },
            content: { "application/json": { examples: { ok: { $ref: "#/components/examples/Ok" } } } },
          },
          "404": {
            description: "`not_found`: no such program. `rate_limited`: too many calls (see `Retry-After`).",
            content: { "application/problem+json": { schema: PROBLEM } },
          },
        },
      },
    },
    "/u": { get: { operationId: "untagged", responses: {} } },
  },
  webhooks: { "customer.created": { post: { summary: "A customer was created", responses: {} } } },
  components: {
    schemas: {},
    headers: { RequestId: { description: "The request's id, also in logs.", schema: { type: "string" } } },
    examples: { Ok: { summary: "Redeemed", value: { code: "ABC" } } },
  },
};

test("operations are grouped by their first tag, in the order of the document's tags, untagged ones last", () => {
  const groups = groupByTag(doc, operationsOf(doc.paths));
  assert.deepEqual(
    groups.map((g) => [g.name, g.operations.map((o) => o.id)]),
    [
      ["Rewards", ["redeem"]],
      ["Customers", ["getC"]],
      ["Other operations", ["untagged"]],
    ],
  );
  assert.equal(groups[0]!.id, "tag-rewards");
  const bare = { ...doc, tags: undefined, paths: { "/u": doc.paths["/u"]! } };
  assert.deepEqual(
    groupByTag(bare, operationsOf(bare.paths)).map((g) => g.name),
    ["Operations"],
  );
});

test("a problem response's codes come from the enum, with meanings from the description", () => {
  const response = doc.paths["/r"]!.post!.responses!["404"]!;
  assert.deepEqual(errorCodes(response), {
    codes: [
      { code: "not_found", meaning: "no such program." },
      { code: "rate_limited", meaning: "too many calls (see `Retry-After`)." },
    ],
    prose: false,
  });
  // A description that does not name every code keeps its prose; the codes are still listed.
  assert.deepEqual(errorCodes({ ...response, description: "Not found." }), {
    codes: [{ code: "not_found" }, { code: "rate_limited" }],
    prose: true,
  });
  assert.deepEqual(errorCodes({ description: "Applied." }), { codes: [], prose: true });
});

test("examples are read from the examples map (through $refs) or a single example, as indented JSON", () => {
  const response = doc.paths["/r"]!.post!.responses!["201"]!;
  assert.deepEqual(
    examplesOf(doc, response.content).map((e) => [e.name, e.json]),
    [["Redeemed", '{\n  "code": "ABC"\n}']],
  );
  assert.deepEqual(
    examplesOf(doc, { "application/json": { example: [1] } }).map((e) => e.name),
    ["example"],
  );
  assert.deepEqual(examplesOf(doc, undefined), []);
});

test("an operation shows its examples, headers, error codes and inline code, and escapes any markup", () => {
  const [entry] = operationsOf(doc.paths).filter((o) => o.id === "redeem");
  const html = renderToStaticMarkup(createElement(OperationSection, { doc, entry: entry!, headingLevel: 1 }));
  assert.match(html, /<h3 id="redeem-title"[^>]*>Redeem<\/h3>/);
  assert.match(html, /Spends <code[^>]*>costPoints<\/code> &lt;script&gt;/);
  assert.doesNotMatch(html, /<script>/);
  assert.match(html, /<figcaption[^>]*><span[^>]*>Example: A note<\/span>/);
  assert.match(html, /<pre[^>]*><code>\{\n {2}&quot;note&quot;: &quot;hi&quot;\n\}<\/code><\/pre>/);
  assert.match(html, /aria-label="Headers of 201, Redeem">.*Headers<\/a>: <span[^>]*>x-request-id, RateLimit-Limit</);
  assert.match(html, /aria-label="Error codes of 404, Redeem"/);
  assert.match(html, /<code[^>]*>rate_limited<\/code> — too many calls \(see <code[^>]*>Retry-After<\/code>\)\./);
});

test("response headers are described once per name, through their $refs, in order of first use", () => {
  assert.deepEqual(
    responseHeaders(doc).map((h) => [h.name, h.id, h.descriptions]),
    [
      ["x-request-id", "header-x-request-id", ["The request's id, also in logs."]],
      ["RateLimit-Limit", "header-ratelimit-limit", ["Calls per window."]],
    ],
  );
});
