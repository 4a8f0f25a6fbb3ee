import type { OperationSpec } from "@/lib/api/openapi/operation";
import { flowKey, idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "executeCustomEarningFlow",
  summary: "JeriCommerce alias: execute a custom earning flow",
  description:
    "Alias of Execute a custom earning flow for a customer (`POST /customers/{email}/earning-flows/{flowKey}`) in " +
    "JeriCommerce's shape: the customer as `customerEmail` in the body; the answer says what the run earned and what " +
    "the flow still allows this customer. The same run: points, tier factor, caps and ledger entry.",
  aliasOf: "executeEarningFlow",
  tag: "Earning flows",
  parameters: [programId, flowKey, idempotencyKey],
  body: { schema: "EarningFlowExecute", required: true },
  success: { status: 200, description: "What was earned and what is left.", schema: "EarningFlowExecution" },
  errors: [
    ...CUSTOMER_ERRORS,
    "earning_flow_not_found",
    ...WRITE_ERRORS,
    ["balance_limit", "the balance would exceed the maximum"],
    ["validation_failed", "a missing or invalid `customerEmail`, or params the flow does not accept, by path"],
  ],
};
