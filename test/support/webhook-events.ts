/**
 * The one check that an event body is what the document says it is (issue 11 item 7): its `type` has a schema in
 * WEBHOOK_EVENTS (lib/api/schemas/events.ts), the body parses with it, and carries no field the schema does not
 * declare (zod drops unknown keys, so the parsed value must equal the body). Used on the document's examples
 * (test/unit/webhook-events.test.ts) and on real deliveries (test/integration/webhooks.test.ts).
 */
import { WEBHOOK_EVENTS } from "@/lib/api/schemas/events";
import { EVENT_TYPES, type EventType } from "@/lib/domain/vocabulary";
import { isDeepStrictEqual } from "node:util";

/** What is wrong with `body` as a webhook event: nothing when []. */
export function describedEvent(body: Record<string, unknown>): string[] {
  const type = String(body.type);
  if (!(EVENT_TYPES as readonly string[]).includes(type)) return [`unknown event type ${type}`];
  const result = WEBHOOK_EVENTS[type as EventType].safeParse(body);
  if (!result.success) return result.error.issues.map((i) => `${type}: ${i.path.join(".")} ${i.message}`);
  return isDeepStrictEqual(result.data, body) ? [] : [`${type}: fields not in its schema`];
}
