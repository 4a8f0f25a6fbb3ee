import { customerWrite } from "@/lib/api/route-factories";
import { jsonObject, rawJson } from "@/lib/api/json-compose";
import { EarningFlowRun } from "@/lib/api/schemas/earning-flows";
import { executeEarningFlow } from "@/lib/domain/earning-flows";

/** Execute a custom earning flow for a customer. A capped run answers 200 with pointsEarned 0 and `capped`. */
export const POST = customerWrite({
  body: EarningFlowRun,
  bodyOptional: true,
  run: async (req, tx) => {
    const outcome = await executeEarningFlow(tx, {
      programId: req.programId,
      customerId: req.customerId,
      flowKey: req.params.flowKey ?? "",
      params: req.body.params ?? {},
      actor: req.caller.actor,
      idempotencyKey: req.idempotencyKey,
    });
    const { pointsEarned, balance, transactionJson, capped } = outcome;
    return {
      status: 200,
      rawJson: jsonObject({ pointsEarned, balance, transaction: rawJson(transactionJson ?? "null"), capped }),
    };
  },
});
