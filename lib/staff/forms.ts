import "@/lib/zod-browser";
import { z } from "zod";
import { ImageUrl, MAX_POINTS } from "@/lib/api/schemas/common";
import { CouponRequest } from "@/lib/api/schemas/coupons";
import { UserPayload } from "@/lib/api/schemas/customers";
import { NotificationRequest } from "@/lib/api/schemas/notifications";
import { CancelRedemptionRequest, RedeemRequest } from "@/lib/api/schemas/rewards";
import { zodProblems } from "@/lib/api/problem";
import { COUPON_CODE, COUPON_CODE_RULE, notACouponCode } from "@/lib/domain/coupon-codes";
import { EVENT_TYPES, ROLES } from "@/lib/domain/vocabulary";
import { ROTATION_OVERLAP_HOURS } from "@/lib/domain/webhook-rotation";
import {
  declareFlowParams,
  FLOW_PARAM_NAME,
  MAX_FLOW_PARAMS,
  MAX_PARAM_VALUE,
  MIN_PARAM_VALUE,
} from "@/lib/domain/flow-params";
import { RATE_LIMIT } from "@/lib/domain/api-key-limits";
import { isTimeZone } from "@/lib/domain/time-zones";
import { linkTemplateProblem } from "@/lib/domain/referral-rules";

/**
 * The dashboard's form schemas. Client components validate with them before sending (inline errors at once)
 * and the route handlers validate again on the server; where the /v1 API has the same input, its schema is
 * reused, so a field accepted by one is accepted by the other. Client-safe: zod only, no server imports.
 */

/** The API's user payload (names, phone, external id, e-mail verified, new e-mail) plus the birthdate. */
export const UserDataEdit = UserPayload.extend({
  birthdate: z.iso.date("must be a date (YYYY-MM-DD)").nullable().optional(),
});
export type UserDataEdit = z.infer<typeof UserDataEdit>;

/** Signed points (positive adds, negative takes) and the reason every dashboard adjustment needs. */
export const BalanceAdjustment = z.strictObject({
  points: z
    .number("must be a whole number of points")
    .int("must be a whole number of points")
    .refine((n) => n !== 0, "must not be zero")
    .refine((n) => Math.abs(n) <= MAX_POINTS, `must be at most ${MAX_POINTS.toLocaleString("en-US")}`),
  reason: z.string().trim().min(3, "a reason is required (at least 3 characters)").max(255),
});
export type BalanceAdjustment = z.infer<typeof BalanceAdjustment>;

/** BalanceAdjustment for a role with a ceiling (lib/domain/adjustment-ceilings.ts): above it, `rule` on the points. */
export const balanceAdjustmentWithin = (ceiling: number | null, rule: string | null) =>
  ceiling === null
    ? BalanceAdjustment
    : BalanceAdjustment.refine((a) => Math.abs(a.points) <= ceiling, {
        path: ["points"],
        message: rule ?? "above your role's ceiling",
      });

/** A staff member's internal note on a customer (never shown to the customer). */
/** Cancel a redemption from the customer page: the API's body (a reason). */
export const CancelRedemptionForm = CancelRedemptionRequest;
export type CancelRedemptionForm = z.infer<typeof CancelRedemptionForm>;

export const NoteForm = z.strictObject({
  body: z.string().trim().min(1, "write the note").max(4000, "must be at most 4,000 characters"),
});
export type NoteForm = z.infer<typeof NoteForm>;

/** The customer's notification flags and language, as support changes them; at least one. */
export const PreferencesForm = z
  .strictObject({
    language: z
      .string()
      .trim()
      .max(35)
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, "must be a language tag such as en or pt-BR")
      .nullable()
      .optional(),
    balanceNotifications: z.boolean().optional(),
    tierNotifications: z.boolean().optional(),
    rewardAvailableNotifications: z.boolean().optional(),
    locationNotifications: z.boolean().optional(),
    marketingNotifications: z.boolean().optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), "nothing to change");
export type PreferencesForm = z.infer<typeof PreferencesForm>;

/** What the customer page's timeline can be narrowed to. */
export const TIMELINE_KINDS = ["points", "staff", "redemption", "coupon", "notification", "note"] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

export const RedeemForm = RedeemRequest.extend({ rewardId: z.uuid("choose a reward") });
export type RedeemForm = z.infer<typeof RedeemForm>;

export const CouponForm = CouponRequest;
export type CouponForm = z.infer<typeof CouponForm>;

export const NotificationForm = NotificationRequest;
export type NotificationForm = z.infer<typeof NotificationForm>;

export const TierForm = z.strictObject({
  name: z.string().trim().min(1, "a name is required").max(255),
  requiredPoints: z.number().int().min(0).max(MAX_POINTS),
  factor: z.number().min(0).max(100),
  content: z.string().trim().max(2000).nullable().optional(),
  image: ImageUrl.nullable().optional(),
});
export type TierForm = z.infer<typeof TierForm>;

/** A change to a tier from its edit drawer: any of the new tier's fields, at least one. */
export const TierUpdate = TierForm.partial().refine(
  (u) => Object.values(u).some((v) => v !== undefined),
  "nothing to change",
);
export type TierUpdate = z.infer<typeof TierUpdate>;

const PerSecond = (max: number) =>
  z
    .number("must be a whole number")
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(max, `must be at most ${max.toLocaleString("en-US")}`);
/** A key's name and its token bucket (lib/domain/api-keys.ts RATE_LIMIT); left out, the domain's defaults apply. */
export const ApiKeyForm = z.strictObject({
  name: z.string().trim().min(1, "a name is required").max(255),
  rateLimitPerSec: PerSecond(RATE_LIMIT.maxPerSec).optional(),
  rateLimitBurst: PerSecond(RATE_LIMIT.maxBurst).optional(),
});
export type ApiKeyForm = z.infer<typeof ApiKeyForm>;

/** A key's new token bucket; the burst left out becomes 2 × the rate (lib/domain/api-key-limits.ts). */
export const ApiKeyLimits = z.strictObject({
  rateLimitPerSec: PerSecond(RATE_LIMIT.maxPerSec),
  rateLimitBurst: PerSecond(RATE_LIMIT.maxBurst).optional(),
});
export type ApiKeyLimits = z.infer<typeof ApiKeyLimits>;

const Cost = z
  .number("must be a whole number of points")
  .int("must be a whole number of points")
  .min(1, "must be at least 1")
  .max(MAX_POINTS);
/** Units left; null is unlimited. */
const Stock = z
  .number("must be a whole number")
  .int("must be a whole number")
  .min(0, "must not be negative")
  .max(MAX_POINTS)
  .nullable();

/** Redemptions one customer may make of a reward, ever; null is no limit. */
const PerCustomerLimit = z
  .number("must be a whole number")
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(MAX_POINTS)
  .nullable();

/** The fields of a reward, as created and as edited. */
const RewardFields = {
  name: z.string().trim().min(1, "a name is required").max(255),
  description: z.string().trim().max(2000).nullable().optional(),
  image: ImageUrl.nullable().optional(),
  costPoints: Cost,
  stock: Stock.optional(),
  active: z.boolean().optional(),
  perCustomerLimit: PerCustomerLimit.optional(),
  /** The lowest tier that may redeem it; null: every customer. */
  minTierId: z.uuid("choose a tier").nullable().optional(),
};

/** A new reward, with the CLI's `reward create` rules. */
export const RewardForm = z.strictObject(RewardFields);
export type RewardForm = z.infer<typeof RewardForm>;

/** A change to a reward (its edit drawer, or the table's on/off button): any of its fields, at least one. */
export const RewardUpdate = z
  .strictObject({ ...RewardFields, name: RewardFields.name.optional(), costPoints: Cost.optional() })
  .refine((u) => Object.values(u).some((v) => v !== undefined), "nothing to change");
export type RewardUpdate = z.infer<typeof RewardUpdate>;

/** A new coupon pool, with the CLI's `coupon-pool create` rules. */
export const CouponPoolForm = z.strictObject({
  name: z.string().trim().min(1, "a name is required").max(255),
  validDays: z
    .number("must be a whole number of days")
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(3650, "must be at most 3650")
    .nullable()
    .optional(),
});
export type CouponPoolForm = z.infer<typeof CouponPoolForm>;

/** A change to a pool: its name, its validity (for codes assigned from now on), on or off; at least one. */
export const CouponPoolUpdate = CouponPoolForm.partial()
  .extend({ active: z.boolean("must be true or false").optional() })
  .refine((u) => Object.values(u).some((v) => v !== undefined), "nothing to change");
export type CouponPoolUpdate = z.infer<typeof CouponPoolUpdate>;

/** Codes per import request: the browser sends a file in chunks of this size, each one all-or-nothing. */
export const MAX_CODES_PER_CHUNK = 5000;

/** One chunk of a CSV import: the codes importCoupons accepts (trimmed; letters, digits, - and _; at most 64). */
export const CouponImportChunk = z.strictObject({
  codes: z
    .array(z.string().trim().regex(COUPON_CODE, `must be a coupon code: ${COUPON_CODE_RULE} characters`))
    .min(1, "must contain at least one code")
    .max(MAX_CODES_PER_CHUNK, `must contain at most ${MAX_CODES_PER_CHUNK.toLocaleString("en-US")} codes`),
});
export type CouponImportChunk = z.infer<typeof CouponImportChunk>;

/**
 * A coupon CSV as the CLI's `coupon-pool import` reads it: one code per line (the first column), blank lines
 * ignored, an optional `code` header. Returns the codes, or the first bad line (1-based) and why.
 */
export function parseCouponCsv(text: string): { codes: string[] } | { line: number; message: string } {
  const codes: string[] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    const code = (lines[i]!.split(",")[0] ?? "")
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .trim();
    if (!code) continue;
    if (codes.length === 0 && code.toLowerCase() === "code") continue;
    if (!COUPON_CODE.test(code)) return { line: i + 1, message: notACouponCode(code) };
    codes.push(code);
  }
  return { codes };
}

const Cap = z
  .number("must be a whole number of points")
  .int("must be a whole number of points")
  .min(1, "must be at least 1")
  .max(MAX_POINTS)
  .nullable()
  .optional();

const ParamBound = z
  .number("must be a number")
  .min(MIN_PARAM_VALUE, `must be at least ${MIN_PARAM_VALUE}`)
  .max(MAX_PARAM_VALUE, `must be at most ${MAX_PARAM_VALUE.toLocaleString("en-US")}`)
  .nullable()
  .optional();

/** One declared run parameter; bounds default to 0…1,000,000,000 and `required` to true (lib/domain/flow-params.ts). */
export const FlowParamDeclaration = z.strictObject({
  name: z.string().trim().regex(FLOW_PARAM_NAME, "must be a parameter name (letters, digits, _)"),
  type: z.literal("number", "must be number").optional(),
  min: ParamBound,
  max: ParamBound,
  required: z.boolean("must be true or false").nullable().optional(),
});

/** How a flow earns and what a run may send: everything of a flow but its key. */
const FlowDefinition = z.strictObject({
  name: z.string().trim().max(255).nullable().optional(),
  points: Cost.nullable().optional(),
  pointsPerUnit: z
    .number("must be a number")
    .positive("must be more than 0")
    .max(1_000_000, "must be at most 1,000,000")
    .nullable()
    .optional(),
  param: z
    .string()
    .trim()
    .regex(FLOW_PARAM_NAME, "must be a parameter name (letters, digits, _)")
    .nullable()
    .optional(),
  params: z
    .array(FlowParamDeclaration)
    .max(MAX_FLOW_PARAMS, `must declare at most ${MAX_FLOW_PARAMS} parameters`)
    .optional(),
  capPerDay: Cap,
  capTotal: Cap,
  once: z.boolean().optional(),
});

/** The rules of a definition as a whole: fixed points xor points per unit of a param, and the declaration's checks. */
const withFlowRules = <S extends z.ZodType<z.infer<typeof FlowDefinition>>>(schema: S) =>
  schema
    .refine((f) => (f.points == null) !== (f.pointsPerUnit == null), {
      message: "give either points or points per unit",
      path: ["points"],
    })
    .refine((f) => f.pointsPerUnit == null || !!f.param, { message: "points per unit needs a param", path: ["param"] })
    .superRefine((f, ctx) => {
      // The declaration as a whole (duplicates, min ≤ max, the per-unit param required), as the domain checks it.
      for (const p of declareFlowParams(f.params ?? [], f.pointsPerUnit != null ? (f.param ?? null) : null).problems) {
        ctx.addIssue({
          code: "custom",
          message: p.message,
          path: p.path
            .replace(/\]/g, "")
            .split(/[.[]/)
            .map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
        });
      }
    });

/**
 * A new earning flow, with the CLI's `earning-flow create` rules: fixed points, or points per unit of a param, and
 * the parameters a run may send (the per-unit param is declared for you if you leave it out).
 */
export const EarningFlowForm = withFlowRules(
  FlowDefinition.extend({
    key: z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "must be lower-case letters, digits, - or _ (at most 64)"),
  }),
);
export type EarningFlowForm = z.infer<typeof EarningFlowForm>;

/** A flow redefined from its edit drawer: the whole definition, as for a new flow, without the key. */
export const EarningFlowEdit = withFlowRules(FlowDefinition);
export type EarningFlowEdit = z.infer<typeof EarningFlowEdit>;

/** Switch a flow off (its runs are refused) or on again. */
export const EarningFlowActive = z.strictObject({ active: z.boolean("must be true or false") });
export type EarningFlowActive = z.infer<typeof EarningFlowActive>;

const Months = z
  .number("must be a whole number of months")
  .int("must be a whole number of months")
  .min(1, "must be at least 1")
  .max(120, "must be at most 120");
const Ceiling = z
  .number("must be a whole number of points")
  .int("must be a whole number of points")
  .min(0, "must not be negative")
  .max(MAX_POINTS)
  .nullable();

/** Hours a redemption may be cancelled for (lib/domain/redemption-cancel.ts): 0 turns cancelling off; null: no limit. */
export const MAX_CANCEL_HOURS = 8760;
const CancelHours = z
  .number("must be a whole number of hours")
  .int("must be a whole number of hours")
  .min(0, "must not be negative")
  .max(MAX_CANCEL_HOURS, `must be at most ${MAX_CANCEL_HOURS} (a year)`)
  .nullable();

/**
 * The program settings page, with `loyalty program update`'s rules: name, points expiry (months; null: never),
 * tier period (months), the time zone reports count days in, the manual-adjustment ceilings per role (null: none), and
 * the hours a redemption may be cancelled for (0: never; null: at any time).
 */
export const ProgramSettingsForm = z.strictObject({
  name: z.string().trim().min(1, "a name is required").max(255),
  pointsExpiryMonths: Months.nullable(),
  tierPeriodMonths: Months,
  timeZone: z.string().refine(isTimeZone, "must be an IANA time zone, e.g. Europe/Madrid"),
  adjustCeilingSupport: Ceiling,
  adjustCeilingManager: Ceiling,
  /** Left out: unchanged (clients that predate the setting). */
  redemptionCancelHours: CancelHours.optional(),
});
export type ProgramSettingsForm = z.infer<typeof ProgramSettingsForm>;

/** Whole points, from 0 (none) up to MAX_POINTS, for the referral settings. */
const ReferralPoints = (min: number) =>
  z
    .number("must be a whole number of points")
    .int("must be a whole number of points")
    .min(min, `must be at least ${min}`)
    .max(MAX_POINTS);

/**
 * The settings page's "Referrals" card and `loyalty referral settings` (lib/domain/referrals.ts): the link template
 * (an http(s) URL holding {code}; null: no links), each side's points, the qualifying earn's minimum points, and the
 * cap of rewarded referrals per referrer in a period (count null: no cap).
 */
export const ReferralSettingsForm = z.strictObject({
  referralLinkTemplate: z
    .string()
    .trim()
    .max(255, "must be at most 255 characters")
    .superRefine((value, ctx) => {
      const problem = linkTemplateProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .nullable(),
  referralReferrerPoints: ReferralPoints(0),
  referralReferredPoints: ReferralPoints(0),
  referralMinEarnPoints: ReferralPoints(1),
  referralCapCount: z
    .number("must be a whole number")
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(1_000_000)
    .nullable(),
  referralCapDays: z
    .number("must be a whole number of days")
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(3650, "must be at most 3650"),
});
export type ReferralSettingsForm = z.infer<typeof ReferralSettingsForm>;

/** A new program: its name (the rest starts at the defaults and is set on its settings page). */
export const NewProgramForm = z.strictObject({ name: z.string().trim().min(1, "a name is required").max(255) });
export type NewProgramForm = z.infer<typeof NewProgramForm>;

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

const StaffRole = z.enum(ROLES, "choose a role");

export const StaffForm = z.strictObject({
  email: z.string().trim().toLowerCase().max(255).pipe(z.email("must be an e-mail address")),
  name: z.string().trim().min(1, "a name is required").max(255),
  // bcrypt reads at most 72 bytes of a password.
  password: z.string().min(12, "must be at least 12 characters").max(72, "must be at most 72 characters"),
  role: StaffRole,
});
export type StaffForm = z.infer<typeof StaffForm>;

export const StaffRoleForm = z.strictObject({ role: StaffRole });
export type StaffRoleForm = z.infer<typeof StaffRoleForm>;

export const StaffDisabledForm = z.strictObject({ disabled: z.boolean("must be true or false") });
export type StaffDisabledForm = z.infer<typeof StaffDisabledForm>;

/** Field errors by path (`lastName`, `points`…), the same paths the server's problem+json `errors` use. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const p of zodProblems(error)) fields[p.path || "form"] ??= p.message;
  return fields;
}

/** Reversing (part of) a ledger entry from the customer's timeline: points (empty: all that is left) and a reason. */
export const ReversalForm = z.strictObject({
  points: z
    .number("must be a whole number of points")
    .int("must be a whole number of points")
    .min(1, "must be at least 1")
    .max(MAX_POINTS, `must be at most ${MAX_POINTS.toLocaleString("en-US")}`)
    .nullable()
    .optional(),
  reason: z.string().trim().min(3, "a reason is required (at least 3 characters)").max(255),
});
export type ReversalForm = z.infer<typeof ReversalForm>;

/** ReversalForm for a role with an adjustment ceiling: above it, `rule` on the points. */
export const reversalWithin = (ceiling: number | null, rule: string | null) =>
  ceiling === null
    ? ReversalForm
    : ReversalForm.refine((a) => a.points == null || a.points <= ceiling, {
        path: ["points"],
        message: rule ?? "above your role's ceiling",
      });
