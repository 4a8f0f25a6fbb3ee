import { z } from "zod";
import type { DeliveredEventType, EventType } from "@/lib/domain/vocabulary";
import { LEDGER_TYPES, NOTIFICATION_CATEGORIES, TEST_EVENT_TYPE, TIER_STATUSES } from "@/lib/domain/vocabulary";
import { Id, Timestamp } from "./common";

/**
 * The webhook bodies the outbox sends (lib/jobs/outbox.ts): one envelope per event, `data` as the domain writes it
 * (lib/domain/*: emitEvent calls; balance.changed in lib/domain/ledger.ts), and the push endpoint's notification.
 * The document's `webhooks` section is built from these (lib/api/openapi-webhooks.ts).
 */

const envelope = <T extends DeliveredEventType, D extends z.ZodType>(type: T, data: D, description: string) =>
  z
    .object({
      id: Id.describe("The event's id: the same on every retry of its delivery, so receivers can drop duplicates."),
      type: z.literal(type),
      programId: Id,
      createdAt: Timestamp,
      data,
    })
    .meta({ id: eventSchemaId(type), description });

/** `customer.created` → `CustomerCreatedEvent`: the event's schema id in the document's components. */
export const eventSchemaId = (type: DeliveredEventType) =>
  `${type.replace(/(^|\.)(\w)/g, (_m, _dot: string, c: string) => c.toUpperCase())}Event`;

const customerChanged = z.object({
  customerId: Id,
  email: z.string(),
  changes: z.array(z.string()).describe("The names of the fields the batch set (`email` for a rename)."),
});

export const WEBHOOK_EVENTS = {
  "customer.created": envelope(
    "customer.created",
    customerChanged,
    "A customer was created by Create/Update resources.",
  ),
  "customer.updated": envelope(
    "customer.updated",
    customerChanged.extend({
      previousEmail: z.string().optional().describe("The e-mail before a rename (present only then)."),
    }),
    "A customer's fields were changed by Create/Update resources (or renamed).",
  ),
  "customer.deleted": envelope(
    "customer.deleted",
    z.object({ customerId: Id }),
    "A customer was erased by Delete resources.",
  ),
  "balance.changed": envelope(
    "balance.changed",
    z.object({
      customerId: Id,
      transactionId: Id,
      type: z.enum(LEDGER_TYPES),
      points: z.number().int().describe("Signed: positive adds to the balance, negative takes from it."),
      balance: z.number().int().describe("The balance after this entry."),
    }),
    "A ledger entry changed a customer's balance (any source: API, dashboard, earning flow, expiry).",
  ),
  "tier.changed": envelope(
    "tier.changed",
    z.object({
      customerId: Id,
      fromTierId: Id.nullable(),
      toTierId: Id.nullable(),
      tierStatus: z.enum(TIER_STATUSES),
    }),
    "A customer moved to another tier.",
  ),
  "reward.redeemed": envelope(
    "reward.redeemed",
    z.object({ customerId: Id, rewardId: Id, redemptionId: Id, code: z.string(), points: z.number().int() }),
    "A customer redeemed a reward.",
  ),
  "coupon.assigned": envelope(
    "coupon.assigned",
    z.object({ customerId: Id, couponPoolId: Id, code: z.string() }),
    "A coupon code was assigned to a customer.",
  ),
  "notification.requested": envelope(
    "notification.requested",
    z.object({ customerId: Id, notificationId: Id, category: z.enum(NOTIFICATION_CATEGORIES) }),
    "A push notification was queued (not sent when the customer turned its category off).",
  ),
  "referral.completed": envelope(
    "referral.completed",
    z.object({
      referralId: Id,
      customerId: Id.describe("The customer this event is about: the referred one or the referrer (see `side`)."),
      side: z.enum(["referred", "referrer"]),
      referrerId: Id,
      referredId: Id,
      points: z
        .number()
        .int()
        .describe("The referral points this side got (0 when the program gives none, or capped)."),
      capped: z
        .boolean()
        .describe("The referrer was over the program's cap: the referral completed without their points."),
    }),
    "A referred customer's first qualifying earn completed their referral: one event for each side.",
  ),
} as const satisfies Record<EventType, z.ZodType>;

/** The dashboard's "Send test event": posted to that one webhook only, signed like every event (lib/domain/webhooks.ts). */
export const TestEvent = envelope(
  TEST_EVENT_TYPE,
  z.object({ webhookId: Id, message: z.string() }),
  "A test event a manager sent from the dashboard to one webhook; no customer or balance is involved.",
);

/** What the program's push endpoint receives for a queued notification (signed as webhooks are). */
export const PushNotification = z
  .object({
    id: Id,
    type: z.literal("notification"),
    programId: Id,
    customerId: Id,
    loyaltyCustomerId: z.string(),
    title: z.string(),
    body: z.string(),
    category: z.enum(NOTIFICATION_CATEGORIES),
    data: z.record(z.string(), z.unknown()).nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: "PushNotification", description: "A push notification, posted to the program's push endpoint." });
