import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { openApiDocument } from "@/lib/api/openapi/document";
import { DATA } from "@/lib/api/openapi/webhooks";
import { eventSchemaId, PushNotification, TestEvent, WEBHOOK_EVENTS } from "@/lib/api/schemas/events";
import { EVENT_TYPES, TEST_EVENT_TYPE } from "@/lib/domain/vocabulary";
import { describedEvent } from "../support/webhook-events";

/**
 * Webhooks describe themselves (issue 11 item 7): every event type the outbox sends (EVENT_TYPES) has a zod schema
 * (WEBHOOK_EVENTS, lib/api/schemas/events.ts) and an example (DATA, lib/api/openapi/webhooks.ts); the document's
 * `webhooks` entry for it is generated from that schema, and its example parses with it, no field more or less.
 * Real deliveries are checked against the same schemas in test/integration/webhooks.test.ts.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const doc = JSON.parse(openApiDocument()) as Json;
const exampleOf = (name: string) =>
  doc.webhooks[name].post.requestBody.content["application/json"].examples.default.value as Json;
const schemaRefOf = (name: string) =>
  String(doc.webhooks[name].post.requestBody.content["application/json"].schema.$ref).split("/").at(-1)!;
/** The JSON Schema zod generates for `schema` (registered under `id`: its definition). */
const jsonSchema = (schema: z.ZodType, id: string) => {
  const generated = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" }) as Json;
  return (generated.$defs?.[id] ?? generated) as Json;
};

describe("webhook events", () => {
  test("every event type has a schema and an example, and nothing else has", () => {
    assert.deepEqual(Object.keys(WEBHOOK_EVENTS).sort(), [...EVENT_TYPES].sort(), "WEBHOOK_EVENTS ↔ EVENT_TYPES");
    assert.deepEqual(Object.keys(DATA).sort(), [...EVENT_TYPES].sort(), "examples ↔ EVENT_TYPES");
    for (const type of EVENT_TYPES) {
      const schema = WEBHOOK_EVENTS[type];
      assert.equal(schema.shape.type.value, type, `${type}: its schema's type literal`);
      assert.ok(doc.webhooks[type], `${type}: in the document's webhooks`);
    }
  });

  test("each document entry is generated from its zod schema", () => {
    const components = doc.components.schemas as Json;
    for (const type of EVENT_TYPES) {
      const id = schemaRefOf(type);
      assert.equal(id, eventSchemaId(type));
      const generated = jsonSchema(WEBHOOK_EVENTS[type], id);
      assert.deepEqual(components[id], generated, type);
      assert.equal(components[id].properties.type.const, type);
    }
    assert.equal(schemaRefOf(TEST_EVENT_TYPE), eventSchemaId(TEST_EVENT_TYPE));
    assert.equal(schemaRefOf("pushNotification"), "PushNotification");
  });

  test("each example parses with its event's zod schema, no field more or less", () => {
    for (const type of EVENT_TYPES) {
      const example = exampleOf(type);
      assert.deepEqual(example.data, DATA[type]);
      assert.deepEqual(describedEvent(example), [], type);
    }
    assert.deepEqual(TestEvent.parse(exampleOf(TEST_EVENT_TYPE)), exampleOf(TEST_EVENT_TYPE));
    assert.deepEqual(PushNotification.parse(exampleOf("pushNotification")), exampleOf("pushNotification"));
  });

  test("the check is not vacuous: an unknown type, a missing field, a wrong type, an undocumented field all fail", () => {
    const example = exampleOf("balance.changed");
    assert.deepEqual(describedEvent({ ...example, type: "balance.moved" }), ["unknown event type balance.moved"]);
    const { points: _p, ...missing } = example.data;
    assert.notDeepEqual(describedEvent({ ...example, data: missing }), []);
    assert.notDeepEqual(describedEvent({ ...example, data: { ...example.data, points: "5" } }), []);
    assert.deepEqual(describedEvent({ ...example, data: { ...example.data, secret: 1 } }), [
      "balance.changed: fields not in its schema",
    ]);
    assert.notDeepEqual(describedEvent({ ...example, createdAt: "yesterday" }), []);
  });
});
