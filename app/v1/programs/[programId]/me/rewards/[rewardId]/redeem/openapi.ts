import { REDEEM_ERRORS } from "@/lib/api/openapi/customer-operations";
import { bearer, type OperationSpec } from "@/lib/api/openapi/operation";
import { idempotencyKey, programId, rewardId } from "@/lib/api/openapi/parameters";
import { ME_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "redeemMyReward",
  summary: "The token's customer redeems a reward",
  description: "As Redeem a reward, for the token's customer. The body is optional (no Content-Type, no body).",
  tag: "Customer (me)",
  security: bearer,
  parameters: [programId, rewardId, idempotencyKey],
  body: { schema: "RedeemRequest", required: false },
  success: { status: 201, description: "Redeemed.", schema: "RedeemResult" },
  errors: [...ME_ERRORS, ...WRITE_ERRORS, ...REDEEM_ERRORS],
};
