import { BALANCE_LIMIT } from "@/lib/api/openapi/customer-operations";
import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, flowKey, idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "executeEarningFlow",
  summary: "Execute a custom earning flow for a customer",
  description:
    "Points = fixed points, or pointsPerUnit × the flow's numeric param, times the current tier's factor, rounded down; " +
    "then limited by the flow's caps. A capped run earns 0, answers 200 and names the cap in `capped`. " +
    "`params` carries only the parameters the flow declares (numbers within their bounds); anything else is refused, and the " +
    "ledger entry's metadata keeps `flowKey` and the declared values only. The body may be left out (no Content-Type, no body).",
  tag: "Earning flows",
  parameters: [programId, email, flowKey, idempotencyKey],
  body: { schema: "EarningFlowRun", required: false },
  success: { status: 200, description: "What was earned.", schema: "EarningFlowResult" },
  errors: [
    ...CUSTOMER_ERRORS,
    "earning_flow_not_found",
    ...WRITE_ERRORS,
    BALANCE_LIMIT,
    [
      "validation_failed",
      "an undeclared param, a non-number or nested value, a value out of its bounds, a missing required param or too many keys, " +
        "each listed by path (`params.amount`)",
    ],
  ],
};
