import { apiWrite } from "@/lib/api/handler";
import { apiActor, customerOf } from "@/lib/api/customer-routes";
import { EarningFlowRun } from "@/lib/api/schemas/earning-flows";
import { executeEarningFlow } from "@/lib/domain/earning-flows";

/** Execute a custom earning flow for a customer. A capped run answers 200 with pointsEarned 0 and `capped`. */
export const POST = apiWrite({
  body: EarningFlowRun,
  bodyOptional: true,
  run: async (req, tx) => {
    const customerId = await customerOf(req, tx);
    const outcome = await executeEarningFlow(tx, {
      programId: req.programId,
      customerId,
      flowKey: req.params.flowKey ?? "",
      params: req.body.params ?? {},
      actor: apiActor(req),
      idempotencyKey: req.idempotencyKey,
    });
    return {
      status: 200,
      rawJson: `{"pointsEarned":${outcome.pointsEarned},"balance":${outcome.balance},"transaction":${outcome.transactionJson ?? "null"},"capped":${JSON.stringify(outcome.capped)}}`,
    };
  },
});
