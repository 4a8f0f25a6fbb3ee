import { z } from "zod";
import type { DeliveredEventType, EventType } from "@/lib/domain/vocabulary";
import { LEDGER_TYPES, NOTIFICATION_CATEGORIES, TEST_EVENT_TYPE, TIER_STATUSES } from "@/lib/domain/vocabulary";
import { Id, Timestamp } from "./common";

/**
 * The webhook bodies the outbox sends (lib/jobs/outbox.ts): one envelope per event, `data` as the domain writes it
 * (lib/domain/*: emitEvent calls; balance.changed in lib/domain/ledger.ts), and the push endpoint's notification.
 * The document's `webhooks` section is built from these (lib/api/openapi/webhooks.ts).
 */

/** Every delivery says whether it comes from a live program or a test one (API.md "Test programs"). */
const LIVEMODE = z.boolean().describe("false when the program is a test program (its clock is moved by advance).");

const envelope = <T extends DeliveredEventType, D extends z.ZodType>(type: T, data: D, description: string) =>
  z
    .object({
      id: Id.describe("The event's id: the same on every retry of its delivery, so receivers can drop duplicates."),
      type: z.literal(type),
      programId: Id,
      livemode: LIVEMODE,
      createdAt: Timestamp,
      sequence: z
        .number()
        .int()
        .nullable()
        .describe(
          "Deliveries are unordered (in parallel, and retried): order a customer's events by this number. It increases strictly, in the order the changes committed, across the events that change the same value of a customer (its balance, its tier), but is not contiguous (it is shared by every event of the service). To mirror a value, keep the sequence of the event that last set it and ignore an event with a lower one. Null only for events written before the field existed.",
        ),
      data,
    })
    .meta({ id: eventSchemaId(type), description });

/** `customer.created` → `CustomerCreatedEvent`: the event's schema id in the document's components. */
export const eventSchemaId = (type: DeliveredEventType) =>
  `${type.replace(/(^|\.)(\w)/g, (_m, _dot: string, c: string) => c.toUpperCase())}Event`;

const customerChanged = z.object({
  customerId: Id,
  email: z
    .string()
    .optional()
    .describe(
      "The customer's e-mail. Absent when the customer was erased before this delivery (or its re-send): erasure removes it from every stored event.",
    ),
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
      previousEmail: z
        .string()
        .optional()
        .describe(
          "The e-mail before a rename: present only then, and removed like `email` when the customer is erased.",
        ),
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
      campaign: z
        .object({
          campaignId: Id,
          version: z.number().int().describe("The campaign version that applied."),
          eventId: Id.describe("The customer event (POST …/customers/{email}/events) that caused the entry."),
        })
        .optional()
        .describe("Only on an entry a campaign made: the campaign, its version and the event (API.md, Campaigns)."),
    }),
    "A ledger entry changed a customer's balance (any source: API, dashboard, earning flow, campaign, expiry).",
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
  "redemption.cancelled": envelope(
    "redemption.cancelled",
    z.object({
      customerId: Id,
      rewardId: Id,
      redemptionId: Id,
      code: z.string().describe("The redemption's code, void from now on."),
      points: z.number().int().describe("The points given back."),
      transactionId: Id.describe("The `reversal` ledger entry that gave the points back."),
      reason: z.string(),
      expiredPoints: z
        .number()
        .int()
        .describe("Of `points`, those whose lots expired since the redemption: expired at once, not spendable."),
    }),
    "A redemption was cancelled: its points and stock came back and its code is void.",
  ),
  "transaction.reversed": envelope(
    "transaction.reversed",
    z.object({
      customerId: Id,
      transactionId: Id.describe("The `reversal` ledger entry written."),
      reversesId: Id.describe("The entry reversed."),
      orderId: z.string().nullable().describe("The reversed entry's order, if any."),
      requested: z.number().int().describe("Points asked to reverse (they count against the entry's cap)."),
      points: z.number().int().describe("Points actually taken back (or given back, for a reversed spend)."),
      unrecovered: z
        .number()
        .int()
        .describe("Points of the request already spent, not taken back: requested − points."),
      tierPoints: z.number().int().describe("Tier points removed from the period the reversed earn counted in."),
      balance: z.number().int().describe("The balance after the reversal."),
    }),
    "A ledger entry was reversed (in part or in full), by the API, the dashboard, the CLI or an order refund.",
  ),
  "order.refunded": envelope(
    "order.refunded",
    z.object({
      orderId: z.string(),
      refundId: Id,
      amount: z.number().nullable().describe("The refunded amount sent; null for a full refund."),
      total: z.number().nullable().describe("The order's total sent; null for a full refund."),
      refundedShare: z.number().describe("The order's refunded share after this refund (Σ amount/total, at most 1)."),
      orderPoints: z.number().int().describe("The points the order earned, over all its entries."),
      pointsReversed: z.number().int().describe("Points this refund reversed."),
      totalReversed: z.number().int().describe("Points reversed of the order so far, this refund included."),
      unrecovered: z.number().int().describe("Points of this refund already spent, not taken back."),
      pendingCancelled: z.number().int().describe("Pending points of the order cancelled before they matured."),
      customerIds: z.array(Id).describe("The customers whose entries this refund reversed."),
    }),
    "An order was refunded (in part or in full): its points were reversed across every entry it earned.",
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
  "segment.entered": envelope(
    "segment.entered",
    z.object({
      segmentId: Id,
      segmentName: z.string(),
      customerId: Id,
      email: z.string().nullable().describe("Null when the customer has since been erased."),
    }),
    "A customer entered a segment with `emitEvents` (at a recompute: a change by a write or by time alone).",
  ),
  "segment.left": envelope(
    "segment.left",
    z.object({
      segmentId: Id,
      segmentName: z.string(),
      customerId: Id,
      email: z.string().nullable().describe("Null when the customer was erased (an erased customer leaves)."),
    }),
    "A customer left a segment with `emitEvents` (at a recompute: a change by a write, by time alone, or erasure).",
  ),
  "points.pending": envelope(
    "points.pending",
    z.object({
      customerId: Id,
      pendingId: Id,
      points: z.number().int(),
      orderId: z.string().nullable(),
      maturesAt: Timestamp.nullable().describe("When they become spendable; null: when the order is confirmed."),
    }),
    "An earn went pending (the program's or the campaign's pending setting): not in the balance until it matures.",
  ),
  "points.matured": envelope(
    "points.matured",
    z.object({
      customerId: Id,
      pendingId: Id,
      points: z.number().int(),
      orderId: z.string().nullable(),
      transactionId: Id.describe("The `earn` entry that made the points spendable."),
      confirmed: z.boolean().describe("Matured by the order's confirmation rather than by time."),
    }),
    "Pending points matured (their time came, or their order was confirmed): they are in the balance now.",
  ),
  "points.expiring": envelope(
    "points.expiring",
    z.object({
      customerId: Id,
      points: z
        .number()
        .int()
        .describe("The points that expire at `expiresAt` unless spent (or, on inactivity, used)."),
      expiresAt: Timestamp,
    }),
    "Points of the customer expire soon: sent the program's `expiryWarningDays` before, once per lot and expiry.",
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
    livemode: LIVEMODE,
    customerId: Id,
    loyaltyCustomerId: z.string(),
    title: z.string(),
    body: z.string(),
    category: z.enum(NOTIFICATION_CATEGORIES),
    data: z.record(z.string(), z.unknown()).nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: "PushNotification", description: "A push notification, posted to the program's push endpoint." });
