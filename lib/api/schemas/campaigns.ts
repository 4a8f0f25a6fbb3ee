import { z } from "zod";
import {
  CAMPAIGN_STATUSES,
  CONDITION_OPS,
  LIFECYCLE_KINDS,
  LIMIT_WINDOWS,
  ROUNDINGS,
  SKIP_REASONS,
  STACKINGS,
  type CampaignBody as DomainCampaignBody,
  type CampaignTrigger,
  type Condition,
  type Effect as DomainEffect,
} from "@/lib/domain/campaigns/definition";
import { Id, MAX_POINTS, Timestamp } from "./common";
import { OrderId } from "./points";
import { MAX_PENDING_DAYS } from "@/lib/domain/pending-rules";

/**
 * Event types, campaigns and customer events (API.md "Campaigns and events"). The shapes are checked here; what
 * needs the program's declarations (a condition's attribute, operator and value against the trigger's event type,
 * `per`, the coupon pools, an event's attributes) is checked by lib/domain/campaigns/validate.ts, by path.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const AttributeName = z
  .string()
  .regex(NAME, "must be a name of letters, digits and _ (at most 64), not starting with a digit");

/** An event type's name, in the path and in events: letters, digits, `_`, `.`, `-`, at most 64. */
export const EventTypeName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1 to 64 letters, digits, _, . or -")
  .meta({ examples: ["purchase"] });

const MAX_ATTRIBUTES = 50;
const limited = <T extends z.ZodType>(record: T) =>
  record.refine((r) => Object.keys(r as object).length <= MAX_ATTRIBUTES, `must have at most ${MAX_ATTRIBUTES} keys`);

const ScalarAttribute = z.strictObject({
  type: z.enum(["number", "string", "boolean", "datetime"]),
  required: z.boolean().optional(),
});
const ItemsAttribute = z.strictObject({
  type: z.literal("items"),
  required: z.boolean().optional(),
  fields: limited(z.record(AttributeName, ScalarAttribute)).describe(
    "The fields of each item, declared as attributes.",
  ),
});

export const EventTypeDeclaration = z
  .strictObject({
    attributes: limited(z.record(AttributeName, z.discriminatedUnion("type", [ScalarAttribute, ItemsAttribute]))),
  })
  .meta({
    id: "EventTypeDeclaration",
    examples: [
      {
        attributes: {
          total: { type: "number", required: true },
          channel: { type: "string" },
          items: { type: "items", fields: { sku: { type: "string" }, price: { type: "number" } } },
        },
      },
    ],
  });

export const EventType = z
  .object({
    type: z.string(),
    attributes: z.record(z.string(), z.unknown()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "EventType" });
export const EventTypeList = z.object({ data: z.array(EventType) }).meta({ id: "EventTypeList" });

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be a time of day HH:MM");
const Instant = z.iso.datetime({ offset: true });

const AwardPoints = z
  .strictObject({
    type: z.literal("award_points"),
    points: z.number().int().min(1).max(MAX_POINTS).optional(),
    per: z.string().max(80).optional().describe("`event.<number attribute>`: points = round(value × rate)."),
    rate: z.number().positive().max(1_000_000).optional(),
    round: z.enum(ROUNDINGS).optional(),
    max: z.number().int().min(1).max(MAX_POINTS).optional(),
    tierFactor: z.boolean().optional().describe("false: the tier's factor does not apply (default true)."),
  })
  .superRefine((e, ctx) => {
    const fixed = e.points !== undefined;
    const per = e.per !== undefined || e.rate !== undefined || e.round !== undefined;
    if (fixed === per)
      ctx.addIssue({ code: "custom", path: ["points"], message: "give either points, or per with rate and round" });
    else if (per)
      for (const k of ["per", "rate", "round"] as const)
        if (e[k] === undefined) ctx.addIssue({ code: "custom", path: [k], message: "is required with per" });
    if (fixed && e.max !== undefined) ctx.addIssue({ code: "custom", path: ["max"], message: "goes with per only" });
  });
const MultiplyPoints = z.strictObject({
  type: z.literal("multiply_points"),
  factor: z
    .number()
    .min(1)
    .max(100)
    .describe("Multiplies the points the event's awards give: extra = Σ × (factor − 1)."),
});
const AssignCoupon = z.strictObject({ type: z.literal("assign_coupon"), couponPoolId: z.uuid() });

const Effect = z.discriminatedUnion("type", [AwardPoints, MultiplyPoints, AssignCoupon]);

/** An event trigger `{ event }`, or a lifecycle trigger `{ lifecycle, days?, tier? }` (one object: problems by path). */
const Trigger = z
  .strictObject({
    event: EventTypeName.optional().describe("The declared event type whose events run the campaign."),
    lifecycle: z
      .enum(LIFECYCLE_KINDS)
      .optional()
      .describe(
        'A moment that comes with time (API.md "Lifecycle campaigns"): birthday (local midnight of the birthdate\'s ' +
          "day; 29 February fires on 28 February in other years), anniversary (of memberSince), inactivity (days " +
          "after the last event or earn, once per spell), signup, tier_reached (the tier named by `tier`).",
      ),
    days: z.number().int().min(1).max(3650).optional().describe("inactivity: the days without an event or an earn."),
    tier: z.string().trim().min(1).max(255).optional().describe("tier_reached: the tier's name."),
  })
  .superRefine((t, ctx) => {
    if ((t.event === undefined) === (t.lifecycle === undefined))
      ctx.addIssue({ code: "custom", path: ["event"], message: "give either event or lifecycle" });
    if (t.lifecycle === "inactivity" && t.days === undefined)
      ctx.addIssue({ code: "custom", path: ["days"], message: "is required with lifecycle inactivity" });
    if (t.lifecycle !== "inactivity" && t.days !== undefined)
      ctx.addIssue({ code: "custom", path: ["days"], message: "goes with lifecycle inactivity only" });
    if (t.lifecycle === "tier_reached" && t.tier === undefined)
      ctx.addIssue({ code: "custom", path: ["tier"], message: "is required with lifecycle tier_reached" });
    if (t.lifecycle !== "tier_reached" && t.tier !== undefined)
      ctx.addIssue({ code: "custom", path: ["tier"], message: "goes with lifecycle tier_reached only" });
  })
  .meta({ examples: [{ event: "purchase" }, { lifecycle: "birthday" }, { lifecycle: "inactivity", days: 90 }] });

function triggerOf(t: z.infer<typeof Trigger>): CampaignTrigger {
  if (t.event !== undefined) return { event: t.event };
  if (t.lifecycle === "inactivity") return { lifecycle: t.lifecycle, days: t.days! };
  if (t.lifecycle === "tier_reached") return { lifecycle: t.lifecycle, tier: t.tier! };
  return { lifecycle: t.lifecycle! };
}

/**
 * A campaign's (or an earning flow's) override of the program's pending setting (API.md §4 "Pending points"): on the
 * campaign, not on an effect, because a campaign's points are one ledger entry (its awards and its multiplier's
 * extra points together) and so one pending row. Part of the definition: each version freezes its own.
 */
export const PendingOverrideFields = {
  pendingDays: z
    .number()
    .int()
    .min(0)
    .max(MAX_PENDING_DAYS)
    .optional()
    .describe(
      "Overrides the program's `pendingDays` for this campaign's points: they become spendable this many days after " +
        "the earn (0: at once). Leave out both this and `pending` to follow the program's setting.",
    ),
  pending: z
    .literal("until_confirmed")
    .optional()
    .describe(
      "The campaign's points stay pending until their order is confirmed (`POST /orders/{orderId}/confirm`), " +
        "whatever the program's setting. Not with `pendingDays`.",
    ),
};

export const CampaignBody = z
  .strictObject({
    name: z.string().trim().min(1).max(255),
    trigger: Trigger,
    conditions: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .describe(
        `A tree of { all: [...] }, { any: [...] }, { not: ... } and leaves { attr, op, value }: attr is event.<attribute>, ` +
          `event.<items>[].<field>, customer.tier, customer.balance, customer.memberDays or customer.language; op is one ` +
          `of ${CONDITION_OPS.join(", ")}. Checked against the trigger's event type, every problem by path. None: always.`,
      ),
    effects: z.array(Effect).min(1).max(20),
    limits: z
      .strictObject({
        perCustomer: z
          .strictObject({ count: z.number().int().min(1).max(1_000_000), window: z.enum(LIMIT_WINDOWS) })
          .optional(),
        budgetPoints: z.number().int().min(1).max(MAX_POINTS).optional(),
      })
      .default({}),
    schedule: z
      .strictObject({
        startsAt: Instant.optional(),
        endsAt: Instant.optional(),
        daysOfWeek: z
          .array(z.number().int().min(1).max(7))
          .min(1)
          .max(7)
          .refine((d) => new Set(d).size === d.length, "must not repeat a day")
          .optional()
          .describe("ISO days in the program's time zone: 1 = Monday … 7 = Sunday."),
        hours: z
          .strictObject({ from: HHMM, to: HHMM })
          .optional()
          .describe("Local time of day in the program's time zone, from inclusive to exclusive; wraps past midnight."),
      })
      .default({}),
    priority: z.number().int().min(-1000).max(1000).default(0).describe("Higher first."),
    stacking: z.enum(STACKINGS).default("stack"),
    ...PendingOverrideFields,
  })
  .meta({ id: "CampaignBody" });

/** The domain's campaign body from a checked request (lib/domain/campaigns/definition.ts). */
export function campaignBodyOf(body: z.infer<typeof CampaignBody>): DomainCampaignBody {
  return {
    ...body,
    trigger: triggerOf(body.trigger),
    conditions: (body.conditions ?? null) as Condition | null,
    effects: body.effects.map((e): DomainEffect => {
      if (e.type !== "award_points") return e;
      const tier = e.tierFactor === undefined ? {} : { tierFactor: e.tierFactor };
      if (e.points !== undefined) return { type: e.type, points: e.points, ...tier };
      return {
        type: e.type,
        per: e.per!,
        rate: e.rate!,
        round: e.round!,
        ...(e.max === undefined ? {} : { max: e.max }),
        ...tier,
      };
    }),
  };
}

const CampaignDefinitionOut = z.object({
  trigger: z.object({
    event: z.string().optional(),
    lifecycle: z.enum(LIFECYCLE_KINDS).optional(),
    days: z.number().int().optional(),
    tier: z.string().optional(),
  }),
  conditions: z.unknown(),
  effects: z.array(z.record(z.string(), z.unknown())),
  limits: z.record(z.string(), z.unknown()),
  schedule: z.record(z.string(), z.unknown()),
  priority: z.number().int(),
  stacking: z.enum(STACKINGS),
  pendingDays: z.number().int().optional(),
  pending: z.literal("until_confirmed").optional(),
});

export const Campaign = z
  .object({
    id: Id,
    name: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    version: z.number().int().nullable().describe("The version it runs; null before the first activation."),
    draft: CampaignDefinitionOut.extend({ name: z.string() })
      .nullable()
      .describe("The change that the next activation freezes as a new version; null when none is pending."),
    budgetUsed: z
      .number()
      .int()
      .describe("Points given by the campaign (pending ones included), less what reversals and refunds took back."),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Campaign" });

export const CampaignDetail = Campaign.extend({
  versions: z.array(
    z.object({
      version: z.number().int(),
      name: z.string(),
      definition: CampaignDefinitionOut,
      activatedAt: Timestamp,
    }),
  ),
}).meta({ id: "CampaignDetail" });
export const CampaignList = z
  .object({ data: z.array(Campaign), nextCursor: z.string().nullable() })
  .meta({ id: "CampaignList" });

/** Attributes of an event: at most 32 KB as JSON. */
export const MAX_EVENT_ATTRIBUTES_BYTES = 32 * 1024;

export const CustomerEventRequest = z
  .strictObject({
    type: EventTypeName,
    occurredAt: Instant.optional().describe("When it happened (default: now, on the program's clock)."),
    orderId: OrderId.nullable()
      .optional()
      .describe("The order it belongs to: a refund of it takes back the points the campaigns gave for it."),
    attributes: z
      .record(z.string(), z.unknown())
      .default({})
      .refine(
        (a) => Buffer.byteLength(JSON.stringify(a)) <= MAX_EVENT_ATTRIBUTES_BYTES,
        `must be at most ${MAX_EVENT_ATTRIBUTES_BYTES} bytes as JSON`,
      ),
  })
  .meta({
    id: "CustomerEventRequest",
    examples: [{ type: "purchase", orderId: "ORD-10042", attributes: { total: 120.5, channel: "web" } }],
  });

export const DryRunQuery = z.strictObject({
  dryRun: z.enum(["true", "false"]).optional().describe("true: answer the same and store nothing."),
});

export const CustomerEventResult = z
  .object({
    event: z.object({
      id: Id.nullable().describe("null on a dry run"),
      type: z.string(),
      occurredAt: Timestamp,
    }),
    effects: z.array(
      z.object({
        campaignId: Id,
        campaignVersion: z.number().int(),
        type: z.enum(["award_points", "multiply_points", "assign_coupon"]),
        points: z.number().int().nullable(),
        couponCode: z.string().nullable(),
        transactionId: Id.nullable().describe(
          "The ledger entry of the campaign's points (null on a dry run, and when they went pending).",
        ),
        pending: z
          .object({
            id: Id.nullable().describe("The pending points (null on a dry run)."),
            maturesAt: Timestamp.nullable().describe("When they become spendable; null: when the order is confirmed."),
          })
          .nullable()
          .describe(
            "The campaign's points went (on a dry run: would go) pending: its `pendingDays` / `pending`, else the " +
              "program's setting. Null: spendable at once.",
          ),
      }),
    ),
    balance: z.number().int(),
    skipped: z.array(z.object({ campaignId: Id, reason: z.enum(SKIP_REASONS) })),
  })
  .meta({ id: "CustomerEventResult" });
