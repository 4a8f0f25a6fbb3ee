import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, pageParameters, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "listTransactions",
  summary: "Points history",
  description: "The customer's ledger, newest first, a page at a time: follow `nextCursor` until it is null.",
  tag: "Points",
  parameters: [programId, email, ...pageParameters],
  success: { status: 200, description: "A page of ledger entries.", schema: "TransactionPage" },
  errors: [...CUSTOMER_ERRORS, ["validation_failed", "an invalid limit or cursor, or an unknown query parameter"]],
};
