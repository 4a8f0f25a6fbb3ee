import type { OperationSpec } from "@/lib/api/openapi/operation";
import { idempotencyKey, orderId, programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "refundOrder",
  summary: "Refund an order",
  description:
    "Reverses the points the order earned (every `earn` entry sent with this `orderId`, whatever the customer), in full (no " +
    "`amount`) or in proportion to `amount`/`total`. Refunds add up: after each, the order's reversed points reach " +
    "floor(orderPoints × min(1, Σ amount/total)), less what earlier refunds and reversals already took, so refunding twice " +
    "never reverses twice and partial refunds reach at most the whole order. Points already spent are reported as `unrecovered` " +
    "(balances never go below zero); reversed earns lower the tier points of their period.",
  tag: "Points",
  parameters: [programId, orderId, idempotencyKey],
  body: { schema: "RefundRequest", required: true },
  success: { status: 200, description: "What the refund reversed.", schema: "RefundResult" },
  errors: [
    ...INTEGRATOR_ERRORS,
    ["order_not_found", "no `earn` entry of this program carries the orderId"],
    ...WRITE_ERRORS,
    ["validation_failed", "amount without total (or the reverse), or amount above total"],
  ],
};
