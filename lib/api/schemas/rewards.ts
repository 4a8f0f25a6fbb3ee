import { z } from "zod";
import { Id, Metadata, Timestamp } from "./common";

/** Rewards and their redemption (API.md §3). */

export const Reward = z
  .object({
    id: Id,
    programId: Id,
    name: z.string(),
    description: z.string().nullable(),
    image: z.string().nullable(),
    costPoints: z.number().int(),
    stock: z.number().int().nullable().describe("Units left; null means unlimited."),
    active: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Reward" });
export const RewardList = z.object({ data: z.array(Reward) }).meta({ id: "RewardList" });

export const RedeemRequest = z.strictObject({ metadata: Metadata.nullable().optional() }).meta({ id: "RedeemRequest" });
export const RedeemResult = z
  .object({
    redemption: z.object({
      id: Id,
      rewardId: Id,
      customerId: Id,
      code: z.string().meta({ examples: ["KQ7MZ-4HT2P"] }),
      points: z.number().int(),
      transactionId: Id,
      metadata: z.record(z.string(), z.unknown()).nullable(),
      createdAt: Timestamp,
    }),
    balance: z.number().int(),
  })
  .meta({ id: "RedeemResult" });
