import { apiWrite } from "@/lib/api/handler";
import { customerOf, rewardIdOf } from "@/lib/api/customer-routes";
import { RedeemRequest } from "@/lib/api/schemas/rewards";
import { redeemReward } from "@/lib/domain/rewards";

/** Redeem a reward: spends its cost through the ledger and takes one unit of stock. 201. */
export const POST = apiWrite({
  body: RedeemRequest,
  bodyOptional: true,
  run: async (req, tx) => {
    const customerId = await customerOf(req, tx);
    const result = await redeemReward(tx, {
      programId: req.programId,
      customerId,
      rewardId: rewardIdOf(req),
      actor: req.caller.actor,
      source: "api",
      metadata: req.body.metadata,
      idempotencyKey: req.idempotencyKey,
    });
    return { status: 201, json: result };
  },
});
