import { bearer, type OperationSpec } from "@/lib/api/openapi/operation";
import { pageParameters, programId } from "@/lib/api/openapi/parameters";
import { ME_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getMyTransactions",
  summary: "The token's customer's points history",
  description: "The ledger, newest first, a page at a time: follow `nextCursor` until it is null.",
  tag: "Customer (me)",
  security: bearer,
  parameters: [programId, ...pageParameters],
  success: { status: 200, description: "A page of ledger entries.", schema: "TransactionPage" },
  errors: [...ME_ERRORS, ["validation_failed", "an invalid limit or cursor, or an unknown query parameter"]],
};
