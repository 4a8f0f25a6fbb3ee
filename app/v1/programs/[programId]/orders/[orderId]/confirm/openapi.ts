import type { OperationSpec } from "@/lib/api/openapi/operation";
import { idempotencyKey, orderId, programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "confirmOrder",
  summary: "Confirm an order",
  description:
    'The order was delivered (or can no longer be returned): its pending points (API.md §4 "Pending points") become ' +
    "spendable now, whatever their `maturesAt`, each as an `earn` entry with `metadata.pendingId` and a " +
    '`points.matured` event. Points of a program with `pending: "until_confirmed"` mature only through this call. ' +
    "Idempotent: confirming again matures nothing more (`pointsMatured: 0`) and answers the order's pending points as " +
    "they are. An order whose points were spendable at once answers an empty `pending`.",
  tag: "Points",
  parameters: [programId, orderId, idempotencyKey],
  body: { schema: "ConfirmOrderRequest", required: false },
  success: {
    status: 200,
    description: "The order's pending points after the confirmation.",
    schema: "ConfirmOrderResult",
  },
  errors: [
    ...INTEGRATOR_ERRORS,
    ["order_not_found", "no pending points and no ledger entry of this program carry the orderId"],
    ...WRITE_ERRORS,
  ],
};
