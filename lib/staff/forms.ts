import { z } from "zod";
import { CouponRequest, MAX_POINTS, NotificationRequest, RedeemRequest, UserPayload } from "@/lib/api/schemas";
import { zodProblems } from "@/lib/api/problem";

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
  image: z.url().max(2000).nullable().optional(),
});
export type TierForm = z.infer<typeof TierForm>;

export const ApiKeyForm = z.strictObject({ name: z.string().trim().min(1, "a name is required").max(255) });
export type ApiKeyForm = z.infer<typeof ApiKeyForm>;

/** Field errors by path (`lastName`, `points`…), the same paths the server's problem+json `errors` use. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const p of zodProblems(error)) fields[p.path || "form"] ??= p.message;
  return fields;
}
