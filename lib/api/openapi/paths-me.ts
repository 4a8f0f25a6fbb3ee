import "server-only";
import { bearer, idempotencyKey, operation, pageParameters, programId, rewardId } from "./operations";
import { ME_ERRORS, WRITE_ERRORS } from "./problems";
import { BALANCE_EXPLAINED, REDEEM_ERRORS } from "./paths-customer";

/** The customer-token (/me) operations (part of ./paths.ts). */

export const mePaths: Record<string, unknown> = {
  "/v1/programs/{programId}/me": operation("get", {
    operationId: "getMe",
    summary: "The token's customer",
    description: "The customer the token was issued for, as Get customer details by email returns it.",
    tag: "Customer (me)",
    security: bearer,
    parameters: [programId],
    success: { status: 200, description: "The customer.", schema: "Customer" },
    errors: [...ME_ERRORS, ["customer_not_found", "the customer was erased while the request ran"]],
  }),
  "/v1/programs/{programId}/me/transactions": operation("get", {
    operationId: "getMyTransactions",
    summary: "The token's customer's points history",
    description: "The ledger, newest first, a page at a time: follow `nextCursor` until it is null.",
    tag: "Customer (me)",
    security: bearer,
    parameters: [programId, ...pageParameters],
    success: { status: 200, description: "A page of ledger entries.", schema: "TransactionPage" },
    errors: [...ME_ERRORS, ["validation_failed", "an invalid limit or cursor, or an unknown query parameter"]],
  }),
  "/v1/programs/{programId}/me/balance": operation("get", {
    operationId: "explainMyBalance",
    summary: "The token's customer's balance explained",
    description: `As Explain a balance, for the token's customer. ${BALANCE_EXPLAINED}`,
    tag: "Customer (me)",
    security: bearer,
    parameters: [programId],
    success: { status: 200, description: "The balance explained.", schema: "BalanceExplained" },
    errors: [...ME_ERRORS, ["customer_not_found", "the customer was erased while the request ran"]],
  }),
  "/v1/programs/{programId}/me/rewards/{rewardId}/redeem": operation("post", {
    operationId: "redeemMyReward",
    summary: "The token's customer redeems a reward",
    description: "As Redeem a reward, for the token's customer. The body is optional (no Content-Type, no body).",
    tag: "Customer (me)",
    security: bearer,
    parameters: [programId, rewardId, idempotencyKey],
    body: { schema: "RedeemRequest", required: false },
    success: { status: 201, description: "Redeemed.", schema: "RedeemResult" },
    errors: [...ME_ERRORS, ...WRITE_ERRORS, ...REDEEM_ERRORS],
  }),
};
