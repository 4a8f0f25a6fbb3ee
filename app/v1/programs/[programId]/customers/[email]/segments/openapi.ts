import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "listCustomerSegments",
  summary: "A customer's segments",
  description: "The segments whose filter selects the customer at the program clock's now.",
  tag: "Segments",
  parameters: [programId, email],
  success: { status: 200, description: "The segments, by name.", schema: "CustomerSegments" },
  errors: CUSTOMER_ERRORS,
};
