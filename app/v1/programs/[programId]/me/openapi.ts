import { bearer, type OperationSpec } from "@/lib/api/openapi/operation";
import { programId } from "@/lib/api/openapi/parameters";
import { ME_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getMe",
  summary: "The token's customer",
  description: "The customer the token was issued for, as Get customer details by email returns it.",
  tag: "Customer (me)",
  security: bearer,
  parameters: [programId],
  success: { status: 200, description: "The customer.", schema: "Customer" },
  errors: [...ME_ERRORS, ["customer_not_found", "the customer was erased while the request ran"]],
};
