import "@/lib/zod-browser";
import { z } from "zod";
import { ImageUrl, MAX_POINTS } from "@/lib/api/schemas/common";
import { CouponRequest } from "@/lib/api/schemas/coupons";
import { UserPayload } from "@/lib/api/schemas/customers";
import { NotificationRequest } from "@/lib/api/schemas/notifications";
import { RedeemRequest } from "@/lib/api/schemas/rewards";
import { zodProblems } from "@/lib/api/problem";
import { COUPON_CODE, COUPON_CODE_RULE, notACouponCode } from "@/lib/domain/coupon-codes";
import { ROLES } from "@/lib/domain/vocabulary";
import {
  declareFlowParams,
  FLOW_PARAM_NAME,
  MAX_FLOW_PARAMS,
  MAX_PARAM_VALUE,
  MIN_PARAM_VALUE,
} from "@/lib/domain/flow-params";
import { RATE_LIMIT } from "@/lib/domain/api-key-limits";

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

/** A new reward, with the CLI's `reward create` rules. */
export const RewardForm = z.strictObject({
  name: z.string().trim().min(1, "a name is required").max(255),
  description: z.string().trim().max(2000).nullable().optional(),
  image: ImageUrl.nullable().optional(),
  costPoints: Cost,
  stock: Stock.optional(),
  active: z.boolean().optional(),
});
export type RewardForm = z.infer<typeof RewardForm>;

/** A change to a reward from its table row: active, stock (null: unlimited) and cost; at least one of them. */
export const RewardUpdate = z
  .strictObject({ active: z.boolean().optional(), stock: Stock.optional(), costPoints: Cost.optional() })
  .refine((u) => u.active !== undefined || u.stock !== undefined || u.costPoints !== undefined, "nothing to change");
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

/**
 * A new earning flow, with the CLI's `earning-flow create` rules: fixed points, or points per unit of a param, and
 * the parameters a run may send (the per-unit param is declared for you if you leave it out).
 */
export const EarningFlowForm = z
  .strictObject({
    key: z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "must be lower-case letters, digits, - or _ (at most 64)"),
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
  })
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
export type EarningFlowForm = z.infer<typeof EarningFlowForm>;

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

export const WebhookForm = z.strictObject({ url: HttpUrl });
export type WebhookForm = z.infer<typeof WebhookForm>;

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
