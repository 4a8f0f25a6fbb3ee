import { flowKeyParam } from "@/lib/api/path-params";
import { customerWriteNamed } from "@/lib/api/route-factories";
import { EarningFlowExecute } from "@/lib/api/schemas/earning-flows";
import { executeEarningFlow, flowAllowance } from "@/lib/domain/earning-flows";

/**
 * JeriCommerce alias of Execute a custom earning flow: the customer in the body, answering `{ pointsAwarded,
 * remainingExecutions, recurrence }`. The same run, on the locked path, and what the flow still allows. 200.
 */
export const POST = customerWriteNamed((body) => body.customerEmail, {
  params: { flowKey: flowKeyParam },
  body: EarningFlowExecute,
  run: async (req, tx) => {
    const run = { programId: req.programId, customerId: req.customerId, flowKey: req.params.flowKey ?? "" };
    const outcome = await executeEarningFlow(tx, {
      ...run,
      params: req.body.params ?? {},
      actor: req.caller.actor,
      idempotencyKey: req.idempotencyKey,
    });
    return { status: 200, json: { pointsAwarded: outcome.pointsEarned, ...(await flowAllowance(tx, run)) } };
  },
});
