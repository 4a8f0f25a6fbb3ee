import { BALANCE_EXPLAINED } from "@/lib/api/openapi/customer-operations";
import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "explainBalance",
  summary: "Explain a balance",
  description: BALANCE_EXPLAINED,
  tag: "Points",
  parameters: [programId, email],
  success: { status: 200, description: "The balance explained.", schema: "BalanceExplained" },
  errors: CUSTOMER_ERRORS,
};
