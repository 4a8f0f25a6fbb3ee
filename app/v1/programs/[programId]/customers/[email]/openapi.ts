import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getCustomerByEmail",
  summary: "Get customer details by email",
  description: "The customer with its user data, loyalty data (balance) and tier.",
  tag: "Customers",
  parameters: [programId, email],
  success: { status: 200, description: "The customer.", schema: "Customer" },
  errors: CUSTOMER_ERRORS,
};
