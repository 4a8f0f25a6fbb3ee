import { meWrite } from "@/lib/api/customer-auth";
import { rewardIdOf } from "@/lib/api/customer-routes";
import { RedeemRequest } from "@/lib/api/schemas/rewards";
import { redeemReward } from "@/lib/domain/rewards";

/** The token's customer redeems a reward. */
export const POST = meWrite({
  body: RedeemRequest,
  bodyOptional: true,
  run: async (req, tx) => {
    const result = await redeemReward(tx, {
      programId: req.programId,
      customerId: req.caller.customerId!,
      rewardId: rewardIdOf(req),
      actor: req.caller.actor,
      source: "api",
      metadata: req.body.metadata,
      idempotencyKey: req.idempotencyKey,
    });
    return { status: 201, json: result };
  },
});
