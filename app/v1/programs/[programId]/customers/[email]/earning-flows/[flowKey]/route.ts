import { flowKeyParam } from "@/lib/api/path-params";
import { customerWrite } from "@/lib/api/route-factories";
import { jsonObject, rawJson } from "@/lib/api/json-compose";
import { EarningFlowRun } from "@/lib/api/schemas/earning-flows";
import { executeEarningFlowInOneStatement } from "@/lib/api/one-statement";
import { executeEarningFlow } from "@/lib/domain/earning-flows";
import type { CustomerRequest } from "@/lib/api/route-factories";
import type { z } from "zod";

const flowRun = (req: CustomerRequest<z.output<typeof EarningFlowRun>>) => ({
  programId: req.programId,
  customerId: req.customerId,
  flowKey: req.params.flowKey ?? "",
  params: req.body.params ?? {},
  actor: req.caller.actor,
  idempotencyKey: req.idempotencyKey,
  orderId: req.body.orderId ?? null,
});

/**
 * Execute a custom earning flow for a customer, in one statement after reading the flow. A capped run answers 200
 * with pointsEarned 0 and `capped`.
 */
export const POST = customerWrite({
  params: { flowKey: flowKeyParam },
  body: EarningFlowRun,
  bodyOptional: true,
  statement: (req, database, slot) => executeEarningFlowInOneStatement(database, flowRun(req), slot),
  run: async (req, tx) => {
    const outcome = await executeEarningFlow(tx, flowRun(req));
    const { pointsEarned, balance, transactionJson, pendingJson, capped } = outcome;
    const transaction = rawJson(transactionJson ?? "null");
    return {
      status: 200,
      rawJson: jsonObject({ pointsEarned, balance, transaction, capped, pending: rawJson(pendingJson ?? "null") }),
    };
  },
});
