import "server-only";
import { MAX_TOKEN_TTL_SECONDS, TOKEN_TTL_SECONDS } from "@/lib/domain/customer-tokens";
import { flowKey, idempotencyKey, operation, programId } from "./operations";
import { CUSTOMER_ERRORS, WRITE_ERRORS } from "./problems";

/**
 * The JeriCommerce aliases (API.md §3, README "Coming from JeriCommerce"; part of ./paths.ts): the paths and
 * shapes that vendor's integrations call, over the same domain functions as the operations they alias.
 */

/** `expires_in` of both token operations (lib/api/schemas/tokens.ts). */
export const expiresIn = {
  name: "expires_in",
  in: "query",
  required: false,
  description: `Seconds the token stays valid, 1 to ${MAX_TOKEN_TTL_SECONDS} (7 days), in decimal digits; ${TOKEN_TTL_SECONDS} (one hour) when left out. Anything else is 400 \`validation_failed\`.`,
  schema: { type: "integer", minimum: 1, maximum: MAX_TOKEN_TTL_SECONDS, default: TOKEN_TTL_SECONDS },
};

const TOKEN_QUERY_ERROR = [
  "validation_failed",
  "a missing or invalid `email`, an `expires_in` out of bounds, or an unknown query parameter",
] as const;

export const jeriCommercePaths: Record<string, unknown> = {
  "/v1/programs/{programId}/customers/token": operation("get", {
    operationId: "getCustomerAccessToken",
    summary: "JeriCommerce alias: get a customer token",
    description:
      "Alias of Get a customer token (`GET /customers/{email}/token`) in JeriCommerce's shape: the customer by `?email=`, " +
      "the token as `accessToken`. The same signed token, revoked with the program's others (dashboard: API keys; CLI: " +
      "`loyalty revoke-tokens`).",
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
    errors: [...CUSTOMER_ERRORS, TOKEN_QUERY_ERROR],
  }),
  "/v1/programs/{programId}/custom-earning-flows/{flowKey}/execute": operation("post", {
    operationId: "executeCustomEarningFlow",
    summary: "JeriCommerce alias: execute a custom earning flow",
    description:
      "Alias of Execute a custom earning flow for a customer (`POST /customers/{email}/earning-flows/{flowKey}`) in " +
      "JeriCommerce's shape: the customer as `customerEmail` in the body; the answer says what the run earned and what " +
      "the flow still allows this customer. The same run: points, tier factor, caps and ledger entry.",
    tag: "Earning flows",
    parameters: [programId, flowKey, idempotencyKey],
    body: { schema: "EarningFlowExecute", required: true },
    success: { status: 200, description: "What was earned and what is left.", schema: "EarningFlowExecution" },
    errors: [
      ...CUSTOMER_ERRORS,
      "earning_flow_not_found",
      ...WRITE_ERRORS,
      ["balance_limit", "the balance would exceed the maximum"],
      ["validation_failed", "a missing or invalid `customerEmail`, or params the flow does not accept, by path"],
    ],
  }),
};
