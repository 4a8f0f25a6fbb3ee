import "@/lib/zod-browser";
import { z } from "zod";
import { CouponRequest } from "@/lib/api/schemas/coupons";
import { COUPON_CODE, COUPON_CODE_RULE, notACouponCode } from "@/lib/domain/coupon-codes";

/** Coupons: assigning one to a customer, the pools, and importing codes. */

export const CouponForm = CouponRequest;
export type CouponForm = z.infer<typeof CouponForm>;

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
