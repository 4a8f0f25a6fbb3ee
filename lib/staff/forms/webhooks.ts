import "@/lib/zod-browser";
import { z } from "zod";
import { EVENT_TYPES } from "@/lib/domain/vocabulary";
import { ROTATION_OVERLAP_HOURS } from "@/lib/domain/webhook-rotation";

/** Webhooks and the push endpoint. */

/** An absolute http(s) URL (what the outbox can POST to); the domain functions check it again. */
const HttpUrl = z
  .string()
  .trim()
  .min(1, "a URL is required")
  .max(2000)
  .refine((value) => {
    try {
      const { protocol } = new URL(value);
      return protocol === "https:" || protocol === "http:";
    } catch {
      return false;
    }
  }, "must be an http(s) URL");

/** The event types an endpoint receives; none chosen means every event type (lib/domain/webhooks.ts). */
const EventTypes = z.array(z.enum(EVENT_TYPES, "must be an event type")).max(EVENT_TYPES.length);

export const WebhookForm = z.strictObject({ url: HttpUrl, eventTypes: EventTypes.optional() });
export type WebhookForm = z.infer<typeof WebhookForm>;

export const WebhookSubscriptions = z.strictObject({ eventTypes: EventTypes });
export type WebhookSubscriptions = z.infer<typeof WebhookSubscriptions>;

/** How long the replaced signing secret stays valid beside the new one (0: not at all). */
export const WebhookRotation = z.strictObject({
  overlapHours: z
    .number("must be a whole number of hours")
    .int("must be a whole number of hours")
    .min(0, "must be 0 or more")
    .max(ROTATION_OVERLAP_HOURS.max, `must be at most ${ROTATION_OVERLAP_HOURS.max} (7 days)`),
});
export type WebhookRotation = z.infer<typeof WebhookRotation>;

/** Switch an endpoint off (its queued deliveries are cancelled, not sent) or on again. */
export const WebhookUpdate = z.strictObject({ active: z.boolean("must be true or false") });
export type WebhookUpdate = z.infer<typeof WebhookUpdate>;

/** The program's push endpoint; null removes it. */
export const PushEndpointForm = z.strictObject({ url: HttpUrl.nullable() });
export type PushEndpointForm = z.infer<typeof PushEndpointForm>;
