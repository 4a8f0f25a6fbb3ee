import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { openApiDocument } from "@/lib/api/openapi/document";
import * as H from "@/lib/header-names";
import { MAX_BODY_BYTES } from "@/lib/api/json-body";
import {
  DEFAULT_PAGE_SIZE,
  MAX_BATCH_ITEMS,
  MAX_CURSOR_LENGTH,
  MAX_METADATA_KEYS,
  MAX_PAGE_SIZE,
  MAX_POINTS,
  Metadata,
} from "@/lib/api/schemas/common";
import { PointsChange } from "@/lib/api/schemas/points";
import { MAX_FLOW_PARAMS } from "@/lib/domain/flow-params";
import { EVENT_TYPES, TEST_EVENT_TYPE } from "@/lib/domain/vocabulary";
import { DELIVERY_HEADER, SIGNATURE_HEADER } from "@/lib/domain/webhooks";

/** What the OpenAPI document must say about every operation: statuses, codes, headers, limits, descriptions. */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const doc = JSON.parse(openApiDocument("https://loyalty.example.org")) as Json;
const schemas = doc.components.schemas as Json;
const operations = Object.entries(doc.paths as Json).flatMap(([path, ops]) =>
  Object.entries(ops as Json).map(([method, op]) => ({ path, method, op: op as Json, name: `${method} ${path}` })),
);
const codesOf = (op: Json, status: number): string[] =>
  op.responses[String(status)]?.content["application/problem+json"].schema.properties.code.enum ?? [];
const headersOf = (response: Json) => Object.keys(response.headers ?? {});
const byId = (id: string) => operations.find((o) => o.op.operationId === id)!;
const nonNull = (schema: Json) => (schema.anyOf ? schema.anyOf.find((s: Json) => s.type !== "null") : schema);

describe("the OpenAPI document", () => {
  test("names this deployment as an absolute server URL", () => {
    assert.deepEqual(
      doc.servers.map((s: Json) => s.url),
      ["https://loyalty.example.org"],
    );
    assert.match(JSON.parse(openApiDocument()).servers[0].url, /^https?:\/\/[^/]+$/);
  });

  test("every operation: a tag, a description, described parameters; 503 and 500 with their codes", () => {
    for (const { op, name } of operations) {
      assert.ok(op.tags?.length === 1 && doc.tags.some((t: Json) => t.name === op.tags[0]), `${name} tag`);
      assert.ok(op.description, `${name} description`);
      for (const p of op.parameters) assert.ok(p.description, `${name} parameter ${p.name} description`);
      assert.deepEqual(codesOf(op, 503), ["service_unavailable"], `${name} 503`);
      assert.deepEqual(codesOf(op, 500), ["internal"], `${name} 500`);
      assert.ok(codesOf(op, 429).includes("rate_limited"), `${name} 429`);
      if (name.includes("{programId}")) assert.ok(codesOf(op, 404).includes("not_found"), `${name} 404 not_found`);
    }
  });

  test("every operation with a body documents 413, 415, invalid_json and validation_failed", () => {
    for (const { op, name } of operations.filter((o) => o.op.requestBody)) {
      assert.deepEqual(codesOf(op, 413), ["payload_too_large"], `${name} 413`);
      assert.deepEqual(codesOf(op, 415), ["unsupported_media_type"], `${name} 415`);
      assert.ok(codesOf(op, 400).includes("invalid_json") && codesOf(op, 400).includes("validation_failed"), name);
    }
    assert.match(
      byId("increaseBalance").op.responses["413"].description,
      new RegExp(`${MAX_BODY_BYTES / 1024 / 1024} MiB`),
    );
  });

  test("the ledger pages document their 400; optional bodies are optional", () => {
    for (const id of ["listTransactions", "getMyTransactions"]) {
      assert.deepEqual(codesOf(byId(id).op, 400), ["validation_failed"], id);
    }
    for (const id of ["executeEarningFlow", "redeemReward", "redeemMyReward"]) {
      assert.equal(byId(id).op.requestBody.required, false, id);
    }
  });

  test("Idempotency-Key and its 409 only where the server reads the key: POST, never DELETE", () => {
    for (const { method, op, name } of operations) {
      const keyed = op.parameters.some((p: Json) => p.name === H.IDEMPOTENCY_KEY);
      assert.equal(keyed, method === "post", `${name} Idempotency-Key`);
      assert.equal(codesOf(op, 409).includes("idempotency_conflict"), method === "post", `${name} 409`);
    }
  });

  test("every header is declared once in components.headers, by the names the code sets", () => {
    const names = [
      H.REQUEST_ID,
      H.CACHE_CONTROL,
      H.RATE_LIMIT_LIMIT,
      H.RATE_LIMIT_REMAINING,
      H.RATE_LIMIT_RESET,
      H.RATE_LIMIT_POLICY,
      H.RATE_LIMIT,
      H.RETRY_AFTER,
      H.IDEMPOTENT_REPLAYED,
    ];
    assert.deepEqual(Object.keys(doc.components.headers).sort(), names.sort());
    for (const { method, op, name } of operations) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const headers = headersOf(response);
        for (const h of [H.REQUEST_ID, H.CACHE_CONTROL, H.RATE_LIMIT_LIMIT, H.RATE_LIMIT_REMAINING, H.RATE_LIMIT_RESET])
          assert.ok(headers.includes(h), `${name} ${status} ${h}`);
        const retry = status === "429" || status === "503";
        assert.equal(headers.includes(H.RETRY_AFTER), retry, `${name} ${status} Retry-After`);
        const success = Number(status) < 300;
        assert.equal(headers.includes(H.IDEMPOTENT_REPLAYED), success && method === "post", `${name} ${status} replay`);
        for (const h of Object.values(response.headers as Record<string, Json>))
          assert.match(h.$ref, /^#\/components\/headers\//, `${name} ${status} by reference`);
      }
    }
  });

  test("every limit of the server is in the schemas", () => {
    const metadata = nonNull(schemas.PointsChange.properties.metadata);
    assert.equal(metadata.maxProperties, MAX_METADATA_KEYS);
    assert.equal(nonNull(schemas.NotificationRequest.properties.data).maxProperties, MAX_METADATA_KEYS);
    assert.equal(nonNull(schemas.RedeemRequest.properties.metadata).maxProperties, MAX_METADATA_KEYS);
    assert.equal(schemas.EarningFlowRun.properties.params.maxProperties, MAX_FLOW_PARAMS);
    assert.equal(schemas.PointsChange.properties.points.maximum, MAX_POINTS);
    assert.equal(schemas.IntegrationBatch.maxItems, MAX_BATCH_ITEMS);
    assert.equal(schemas.DeleteBatch.maxItems, MAX_BATCH_ITEMS);
    assert.equal(schemas.NotificationRequest.properties.title.maxLength, 120);
    assert.equal(schemas.NotificationRequest.properties.body.maxLength, 1000);
    const [limit, cursor] = byId("listTransactions").op.parameters.slice(2);
    assert.deepEqual(
      [limit.schema.maximum, limit.schema.default, cursor.schema.maxLength],
      [MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, MAX_CURSOR_LENGTH],
    );
    // …and the constants are the rules the server enforces.
    const keys = (n: number) => Object.fromEntries([...Array(n).keys()].map((i) => [`k${i}`, i]));
    assert.ok(Metadata.safeParse(keys(MAX_METADATA_KEYS)).success);
    assert.ok(!Metadata.safeParse(keys(MAX_METADATA_KEYS + 1)).success);
    assert.ok(!PointsChange.safeParse({ points: MAX_POINTS + 1 }).success);
  });

  test("webhooks: one per event type the service sends, signed, with an example; and the push notification", () => {
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...EVENT_TYPES, TEST_EVENT_TYPE, "pushNotification"].sort());
    for (const [type, hook] of Object.entries(doc.webhooks as Record<string, Json>)) {
      const names = hook.post.parameters.map((p: Json) => p.name);
      assert.deepEqual(names, [SIGNATURE_HEADER, DELIVERY_HEADER], type);
      const media = hook.post.requestBody.content["application/json"];
      assert.ok(Object.keys(media.examples).length > 0, type);
      if (type !== "pushNotification") {
        assert.equal(schemas[media.schema.$ref.split("/").at(-1)].properties.type.const, type, type);
      }
    }
  });
});
