import { z } from "zod";
import { REDEMPTION_STATUSES } from "@/lib/domain/vocabulary";
import { Id, Metadata, Timestamp } from "./common";
import { Transaction } from "./points";

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
export const Redemption = z
  .object({
    id: Id,
    rewardId: Id,
    customerId: Id,
    code: z.string().meta({ examples: ["KQ7MZ-4HT2P"] }),
    points: z.number().int(),
    transactionId: Id.describe("The `redeem` ledger entry that spent the points."),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    createdAt: Timestamp,
    status: z
      .enum(REDEMPTION_STATUSES)
      .describe("`active`: the code is valid; `cancelled`: the redemption was cancelled and its code is void."),
    cancelledAt: Timestamp.nullable(),
    cancelReason: z.string().nullable(),
  })
  .meta({ id: "Redemption" });

export const RedeemResult = z
  .object({ redemption: Redemption, balance: z.number().int() })
  .meta({ id: "RedeemResult" });

export const CancelRedemptionRequest = z
  .strictObject({
    reason: z
      .string()
      .trim()
      .min(1, "a reason is required")
      .max(255)
      .describe("Why the redemption is cancelled (kept on the redemption and in the ledger entry)."),
  })
  .meta({ id: "CancelRedemptionRequest" });

export const CancelRedemptionResult = z
  .object({
    redemption: Redemption,
    balance: z.number().int().describe("The balance after the points came back (and those expired since went)."),
    transaction: Transaction.describe("The `reversal` ledger entry that gave the points back."),
    expiredPoints: z
      .number()
      .int()
      .describe(
        "Of the points given back, those whose lots have expired since the redemption: expired at once (an `expire` entry), not spendable.",
      ),
  })
  .meta({ id: "CancelRedemptionResult" });
