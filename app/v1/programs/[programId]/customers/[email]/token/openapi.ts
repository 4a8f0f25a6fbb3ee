import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, expiresIn, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getCustomerToken",
  summary: "Get a customer token",
  description:
    "A signed token (HS256 JWT) valid `expires_in` seconds (one hour by default, at most 7 days), for a front-end " +
    "widget to call the `/me` routes as this customer. Every token of the program is revoked at once from the " +
    "dashboard (API keys) or the CLI (`loyalty revoke-tokens`).",
  tag: "Customers",
  parameters: [programId, email, expiresIn],
  success: { status: 200, description: "The token.", schema: "CustomerToken" },
  errors: [...CUSTOMER_ERRORS, ["validation_failed", "an `expires_in` out of bounds, or an unknown query parameter"]],
};
