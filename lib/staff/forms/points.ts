import "@/lib/zod-browser";
import { z } from "zod";
import { MAX_POINTS } from "@/lib/api/schemas/common";

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
