import "@/lib/zod-browser";
import { z } from "zod";
import { ImageUrl, MAX_POINTS } from "@/lib/api/schemas/common";

/** Tiers: create and edit. */

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
