import "@/lib/zod-browser";
import { z } from "zod";
import { MAX_POINTS } from "@/lib/api/schemas/common";

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
