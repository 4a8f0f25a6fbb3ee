import { z } from "zod";
import { Id, Timestamp } from "./common";

/** Tiers (API.md §4), as listed and as nested in a customer. */

export const Tier = z
  .object({
    id: Id,
    programId: Id,
    name: z.string(),
    content: z.string().nullable(),
    image: z.string().nullable(),
    requiredPoints: z.number().int(),
    factor: z.number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Tier" });

export const TierList = z.object({ data: z.array(Tier) }).meta({ id: "TierList" });
