import type { OperationSpec } from "@/lib/api/openapi/operation";
import { expiresIn, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getCustomerAccessToken",
  summary: "JeriCommerce alias: get a customer token",
  description:
    "Alias of Get a customer token (`GET /customers/{email}/token`) in JeriCommerce's shape: the customer by `?email=`, " +
    "the token as `accessToken`. The same signed token, revoked with the program's others (dashboard: API keys; CLI: " +
    "`loyalty revoke-tokens`).",
  aliasOf: "getCustomerToken",
  tag: "Customers",
  parameters: [
    programId,
    {
      name: "email",
      in: "query",
      required: true,
      description: "The customer's e-mail; compared case-insensitively.",
      schema: { type: "string", maxLength: 254 },
      example: "jane.doe@example.com",
    },
    expiresIn,
  ],
  success: { status: 200, description: "The token.", schema: "CustomerAccessToken" },
  errors: [
    ...CUSTOMER_ERRORS,
    ["validation_failed", "a missing or invalid `email`, an `expires_in` out of bounds, or an unknown query parameter"],
  ],
};
