import type { PendingOverride } from "../pending-rules";

/**
 * What a campaign and an event type are made of (API.md "Campaigns and events"): the closed vocabularies and the
 * plain types the evaluator, the validator, the store and the schemas share. Client-safe: constants and types only.
 */

/** The types an event attribute may be declared with; `items` is an array of objects declared the same way. */
export const ATTRIBUTE_TYPES = ["number", "string", "boolean", "datetime", "items"] as const;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

/** A scalar attribute (also an item's field). */
export interface ScalarAttribute {
  type: Exclude<AttributeType, "items">;
  required?: boolean;
}
/** An array of objects whose fields are declared as scalars. */
export interface ItemsAttribute {
  type: "items";
  required?: boolean;
  fields: Record<string, ScalarAttribute>;
}
export type AttributeDeclaration = ScalarAttribute | ItemsAttribute;
/** An event type's declaration: its attributes by name. */
export type EventAttributes = Record<string, AttributeDeclaration>;

export const CONDITION_OPS = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "exists"] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** A leaf: `attr` is `event.<attribute>`, `event.<items>[].<field>` or `customer.<field>`. */
export interface ConditionLeaf {
  attr: string;
  op: ConditionOp;
  value?: unknown;
}
export type Condition = { all: Condition[] } | { any: Condition[] } | { not: Condition } | ConditionLeaf;

/** The customer's fields a condition may read, with their types. */
export const CUSTOMER_ATTRIBUTES = {
  tier: "string",
  balance: "number",
  memberDays: "number",
  language: "string",
} as const satisfies Record<string, Exclude<AttributeType, "items">>;
export type CustomerAttribute = keyof typeof CUSTOMER_ATTRIBUTES;

/** The types a program may declare a customer attribute with (read as `customer.<name>`). */
export const CUSTOMER_ATTRIBUTE_TYPES = ["number", "string", "boolean", "datetime"] as const;
export type CustomerAttributeType = (typeof CUSTOMER_ATTRIBUTE_TYPES)[number];
/** A program's declared customer attributes: type by name. */
export type CustomerAttributes = Record<string, CustomerAttributeType>;
/** `customer.segment`: the segments (ids or names) the customer is in; ops `in` and `nin` only. */
export const SEGMENT_ATTR = "customer.segment";
/**
 * Names a declared customer attribute may not take: the customer's own fields that conditions and segment filters
 * read (lib/domain/segments/filter.ts), and `segment`.
 */
export const RESERVED_CUSTOMER_NAMES = [
  ...Object.keys(CUSTOMER_ATTRIBUTES),
  "birthdate",
  "utmSource",
  "utmMedium",
  "utmCampaign",
  "lastActivityAt",
  "segment",
] as const;

export const ROUNDINGS = ["down", "nearest", "up"] as const;
export type Rounding = (typeof ROUNDINGS)[number];

export type Effect =
  | { type: "award_points"; points: number; tierFactor?: boolean }
  | {
      type: "award_points";
      per: string;
      rate: number;
      round: Rounding;
      max?: number;
      tierFactor?: boolean;
      /**
       * The tier factor multiplies the unrounded amount, which is then rounded down (an earning flow's rule: points
       * per unit × factor, API.md §4). Not part of the campaigns API: only earning flows' campaigns say it.
       */
      factorFirst?: boolean;
    }
  | { type: "multiply_points"; factor: number }
  | { type: "assign_coupon"; couponPoolId: string };
export const EFFECT_TYPES = ["award_points", "multiply_points", "assign_coupon"] as const;
export type EffectType = (typeof EFFECT_TYPES)[number];

export const LIMIT_WINDOWS = ["day", "week", "month", "year", "lifetime"] as const;
export type LimitWindow = (typeof LIMIT_WINDOWS)[number];

export interface CampaignLimits {
  perCustomer?: { count: number; window: LimitWindow };
  budgetPoints?: number;
  /**
   * Points caps per customer: in each cap's window the customer gets at most `points` from the campaign; a cap that
   * cuts names itself (`AppliedCampaign.capped`), and a later cap that cuts further names itself instead. The points
   * the customer already got in each window come with the campaign's state (`CampaignVersionState.customerPoints`).
   * Not part of the campaigns API yet: earning flows' caps (earning-flows.ts `flowCampaign`) are these.
   */
  pointsCaps?: { points: number; window: LimitWindow }[];
}

/** When a campaign runs: from startsAt (inclusive) to endsAt (exclusive); ISO days 1 (Monday)–7; local HH:MM from–to. */
export interface CampaignSchedule {
  startsAt?: string;
  endsAt?: string;
  daysOfWeek?: number[];
  hours?: { from: string; to: string };
}

export const STACKINGS = ["stack", "exclusive"] as const;
export type Stacking = (typeof STACKINGS)[number];

/**
 * Lifecycle triggers (API.md "Lifecycle campaigns"): moments that come with time, not with an event. Each fires once
 * per occurrence for a customer: `birthday` at local midnight of the birthdate's day in the program's time zone, once
 * a year (29 February: on 28 February in other years); `anniversary` at local midnight of memberSince's day, each
 * year from the first; `inactivity` `days` after the customer's last activity (an event, or an earn not given by a
 * lifecycle campaign), once per such spell; `signup` when the customer joins; `tier_reached` when the customer's
 * tier becomes `tier` (its name).
 */
export const LIFECYCLE_KINDS = ["birthday", "anniversary", "inactivity", "signup", "tier_reached"] as const;
export type LifecycleKind = (typeof LIFECYCLE_KINDS)[number];
export type LifecycleTrigger =
  | { lifecycle: "birthday" | "anniversary" | "signup" }
  | { lifecycle: "inactivity"; days: number }
  | { lifecycle: "tier_reached"; tier: string };
export type CampaignTrigger = { event: string } | LifecycleTrigger;

/** The attributes a lifecycle firing carries, as an event's: conditions may read `event.<name>`. */
export const LIFECYCLE_ATTRIBUTES: Record<LifecycleKind, EventAttributes> = {
  birthday: { age: { type: "number", required: true } },
  anniversary: { years: { type: "number", required: true } },
  inactivity: { days: { type: "number", required: true }, lastActivityAt: { type: "datetime", required: true } },
  signup: {},
  tier_reached: { tier: { type: "string", required: true } },
};

export const isLifecycle = (trigger: CampaignTrigger): trigger is LifecycleTrigger => "lifecycle" in trigger;

/**
 * The event type a trigger answers to: the event's, or for a lifecycle trigger a name no event type can have (a `:`
 * is not allowed in one), so the one evaluator matches lifecycle firings and events the same way.
 */
export function triggerType(trigger: CampaignTrigger): string {
  if (!isLifecycle(trigger)) return trigger.event;
  if (trigger.lifecycle === "inactivity") return `lifecycle:inactivity:${trigger.days}`;
  if (trigger.lifecycle === "tier_reached") return `lifecycle:tier_reached:${trigger.tier}`;
  return `lifecycle:${trigger.lifecycle}`;
}

/** A trigger in words, for people: the event type, or the lifecycle moment. */
export function triggerLabel(trigger: CampaignTrigger): string {
  if (!isLifecycle(trigger)) return trigger.event;
  if (trigger.lifecycle === "inactivity") return `inactivity (${trigger.days} days)`;
  if (trigger.lifecycle === "tier_reached") return `tier reached: ${trigger.tier}`;
  return trigger.lifecycle;
}

/**
 * What a version freezes: everything but the name and status. `pendingDays` / `pending` (pending-rules.ts
 * `PendingOverride`) override the program's pending setting for the campaign's points; neither: the program's.
 */
export interface CampaignDefinition extends PendingOverride {
  trigger: CampaignTrigger;
  conditions: Condition | null;
  effects: Effect[];
  limits: CampaignLimits;
  schedule: CampaignSchedule;
  priority: number;
  stacking: Stacking;
}

/** What a campaign is written as: its name and its definition. */
export type CampaignBody = { name: string } & CampaignDefinition;

export const CAMPAIGN_STATUSES = ["draft", "active", "paused", "ended"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** Why a campaign whose trigger matched did not apply (the events answer's `skipped`). */
export const SKIP_REASONS = [
  "condition_false",
  "outside_schedule",
  "customer_limit_reached",
  "budget_exhausted",
  "exclusive_campaign_applied",
  "coupon_pool_empty",
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];
