import { BALANCE_EXPLAINED } from "@/lib/api/openapi/customer-operations";
import { bearer, type OperationSpec } from "@/lib/api/openapi/operation";
import { programId } from "@/lib/api/openapi/parameters";
import { ME_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "explainMyBalance",
  summary: "The token's customer's balance explained",
  description: `As Explain a balance, for the token's customer. ${BALANCE_EXPLAINED}`,
  tag: "Customer (me)",
  security: bearer,
  parameters: [programId],
  success: { status: 200, description: "The balance explained.", schema: "BalanceExplained" },
  errors: [...ME_ERRORS, ["customer_not_found", "the customer was erased while the request ran"]],
};
