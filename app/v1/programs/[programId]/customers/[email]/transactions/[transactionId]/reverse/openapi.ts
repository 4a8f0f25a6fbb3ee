import { BALANCE_LIMIT } from "@/lib/api/openapi/customer-operations";
import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, idempotencyKey, programId, transactionId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "reverseTransaction",
  summary: "Reverse a transaction",
  description:
    "Writes a `reversal` entry linked to the entry (`reversesId`): part of it (`points`) or everything left. Reversals of an entry " +
    "add up to at most its points. An `earn` or positive `adjust` is taken back from the balance, the entry's own points first, " +
    "never below zero: what the customer already spent is reported as `unrecovered` (and still counts against the entry). A " +
    "reversed `earn` lowers the tier points of the period it counted in (the tier itself changes at the next recalculation). " +
    "A `spend` or negative `adjust` reversed gives the points back. Redemptions are cancelled, not reversed.",
  tag: "Points",
  parameters: [programId, email, transactionId, idempotencyKey],
  body: { schema: "ReversalRequest", required: true },
  success: {
    status: 200,
    description: "The new balance, the reversal entry and the points not recovered.",
    schema: "ReversalResult",
  },
  errors: [
    ...CUSTOMER_ERRORS,
    ["transaction_not_found", "also an id that is not a UUID, or an entry of another customer"],
    ...WRITE_ERRORS,
    "transaction_not_reversible",
    "reversal_exceeds_original",
    BALANCE_LIMIT,
  ],
};
