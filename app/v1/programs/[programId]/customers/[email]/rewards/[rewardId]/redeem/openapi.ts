import { REDEEM_ERRORS } from "@/lib/api/openapi/customer-operations";
import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, idempotencyKey, programId, rewardId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "redeemReward",
  summary: "Redeem a reward",
  description:
    "Spends the reward's costPoints through the ledger (type `redeem`), takes one unit of stock and issues a redemption code, atomically. " +
    "The body is optional (no Content-Type, no body).",
  tag: "Rewards",
  parameters: [programId, email, rewardId, idempotencyKey],
  body: { schema: "RedeemRequest", required: false },
  success: { status: 201, description: "Redeemed.", schema: "RedeemResult" },
  errors: [...CUSTOMER_ERRORS, ...WRITE_ERRORS, ...REDEEM_ERRORS],
};
