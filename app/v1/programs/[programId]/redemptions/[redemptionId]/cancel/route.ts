import { apiWrite } from "@/lib/api/route-factories";
import { uuidParam } from "@/lib/api/path-params";
import { jsonObject, rawJson } from "@/lib/api/json-compose";
import { CancelRedemptionRequest } from "@/lib/api/schemas/rewards";
import { cancelRedemption } from "@/lib/domain/redemption-cancel";
import { redemptionNotFound } from "@/lib/errors";

/** Cancel a redemption within the program's window: points and stock back, code void, once. 200. */
export const POST = apiWrite({
  params: {
    redemptionId: uuidParam(redemptionNotFound),
  },
  body: CancelRedemptionRequest,
  run: async (req, tx) => {
    const result = await cancelRedemption(tx, {
      programId: req.programId,
      redemptionId: req.params.redemptionId!,
      reason: req.body.reason,
      actor: req.caller.actor,
      source: "api",
      idempotencyKey: req.idempotencyKey,
    });
    // The stored outcome is filed under the customer, so erasing them erases it too.
    req.customerId = result.customerId;
    return {
      status: 200,
      rawJson: jsonObject({
        redemption: result.redemption,
        balance: result.balance,
        transaction: rawJson(result.entryJson),
        expiredPoints: result.expiredPoints,
      }),
    };
  },
});
