import "@/lib/zod-browser";
import { z } from "zod";
import { isCurrency, parsePointValue } from "@/lib/domain/point-value";

/**
 * The Finance page's "Value of a point" form: the program's currency (ISO 4217) and the money value of one point in
 * it, a decimal with at most 6 places (lib/domain/point-value.ts), both set or both cleared (null).
 */
export const PointValueForm = z
  .strictObject({
    currency: z
      .string()
      .trim()
      .transform((s) => s.toUpperCase())
      .refine(isCurrency, "must be a currency code of three letters, e.g. EUR")
      .nullable(),
    pointValue: z
      .string()
      .trim()
      .refine((s) => parsePointValue(s) !== null, "must be a number with at most 6 decimals, e.g. 0.01")
      .refine((s) => (parsePointValue(s) ?? 0n) > 0n, "must be more than 0")
      .nullable(),
  })
  .refine((f) => (f.currency === null) === (f.pointValue === null), {
    path: ["pointValue"],
    message: "set both the currency and the value, or neither",
  });
export type PointValueForm = z.infer<typeof PointValueForm>;
