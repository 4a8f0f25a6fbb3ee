/**
 * The one place for the domain's vocabularies: every closed list of values a column, an API field or a form
 * may hold. The domain types its inputs with the unions; the zod schemas (lib/api/schemas/*, lib/staff/forms.ts)
 * build their enums from the lists (`z.enum(ROLES)`), so the two cannot drift. Client-safe: constants only.
 * The database stores these as text (no enum in prisma/schema.prisma): read them back with `memberOf`.
 */

/** What a ledger entry did (API.md §4). `earn` counts towards tiers; `adjust` is a dashboard correction. */
export const LEDGER_TYPES = ["earn", "spend", "adjust", "redeem", "expire", "reversal"] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

/** Which door a ledger entry came through. */
export const LEDGER_SOURCES = ["api", "dashboard", "earning_flow", "system"] as const;
export type LedgerSource = (typeof LEDGER_SOURCES)[number];

/** Where a customer's current tier comes from (tier-rules.ts). */
export const TIER_STATUSES = ["base", "earned", "carried"] as const;
export type TierStatus = (typeof TIER_STATUSES)[number];

/** An earning flow's key: lower-case letters, digits, - or _, at most 64 (forms, CLI and the API's path agree). */
export const EARNING_FLOW_KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Which cap limited an earning-flow run (earning-flows.ts). */
export const CAP_REASONS = ["once", "cap_total", "cap_per_day"] as const;
export type CapReason = (typeof CAP_REASONS)[number];

/** How often an earning flow pays a customer, as JeriCommerce's execute answer names it (earning-flows.ts `flowAllowance`). */
export const FLOW_RECURRENCES = ["once", "daily", "unlimited"] as const;
export type FlowRecurrence = (typeof FLOW_RECURRENCES)[number];

/** Push notification categories; a customer can turn each one off. */
export const NOTIFICATION_CATEGORIES = ["balance", "tier", "rewardAvailable", "location", "marketing"] as const;
export type NotificationCategory = (typeof NOTIFICATION_CATEGORIES)[number];

/** What becomes of a notification when it is sent: queued for the push endpoint, or suppressed by the customer's choice. */
export const NOTIFICATION_OUTCOMES = ["queued", "suppressed"] as const;
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];

/** A redemption's state: its code is valid until the redemption is cancelled (lib/domain/redemption-cancel.ts). */
export const REDEMPTION_STATUSES = ["active", "cancelled"] as const;
export type RedemptionStatus = (typeof REDEMPTION_STATUSES)[number];

/** Staff roles, most powerful first; what each may do is data in lib/staff/authz.ts. */
export const ROLES = ["owner", "manager", "support", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** Delivery states of the outbox (lib/jobs/outbox.ts). */
export const DELIVERY_STATUSES = ["pending", "delivered", "failed", "cancelled"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What the outbox delivers: an event to a webhook, or a notification to the push endpoint. */
export const DELIVERY_KINDS = ["webhook", "push"] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** Event types of API.md §5, delivered to webhooks through the outbox. */
export const EVENT_TYPES = [
  "customer.created",
  "customer.updated",
  "customer.deleted",
  "balance.changed",
  "tier.changed",
  "reward.redeemed",
  "coupon.assigned",
  "notification.requested",
  "redemption.cancelled",
  "transaction.reversed",
  "order.refunded",
  "referral.completed",
  "segment.entered",
  "segment.left",
  "points.pending",
  "points.matured",
  "points.expiring",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The event the dashboard's "Send test event" posts to one webhook (lib/domain/webhooks.ts): never emitted by a
 * change, so not in EVENT_TYPES and not something a webhook subscribes to.
 */
export const TEST_EVENT_TYPE = "webhook.test";
export type DeliveredEventType = EventType | typeof TEST_EVENT_TYPE;

/**
 * The `feature` values of the create/update batch: `user` (spec §2.6), `users` (JeriCommerce's spelling of the same
 * item) and `loyalty` (a migrated balance, member-since date and tier: lib/domain/loyalty-items.ts).
 */
export const FEATURES = ["user", "users", "loyalty"] as const;
export type Feature = (typeof FEATURES)[number];
/** The `feature` values that name a user item (create/update and delete). */
export const USER_FEATURES = ["user", "users"] as const;
export type UserFeature = (typeof USER_FEATURES)[number];

/**
 * A text column read back as a member of its vocabulary. The application writes only listed values, so anything
 * else is a bug or a hand-edited row: it throws rather than pass an unknown value on as if it were typed.
 */
export function memberOf<const T extends string>(list: readonly T[], value: string): T {
  const found = list.find((item) => item === value);
  if (found === undefined) throw new Error(`"${value}" is not one of ${list.join(", ")}`);
  return found;
}
