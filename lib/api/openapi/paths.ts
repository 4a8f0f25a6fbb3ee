import "server-only";
import { email, idempotencyKey, operation, orderId, programId } from "./operations";
import { customerPaths } from "./paths-customer";
import { expiresIn, jeriCommercePaths } from "./paths-jericommerce";
import { mePaths } from "./paths-me";
import { redemptionPaths } from "./paths-redemptions";
import { BODY_ERRORS, CUSTOMER_ERRORS, INTEGRATOR_ERRORS, WRITE_ERRORS } from "./problems";

/**
 * The one place where the /v1 operations are listed for the OpenAPI document (lib/api/openapi/document.ts): one entry per
 * route file export under app/v1 (test/unit/openapi-routes.test.ts keeps the two in step), here and in
 * ./paths-customer.ts and ./paths-me.ts. Request and response bodies reference the zod schemas by
 * their `.meta({ id })`; error responses come from the catalogue, examples from ./examples.ts.
 */

const BATCH_ERRORS = [
  ["unsupported_feature", "every problem is a `feature` this service does not support"],
  ["validation_failed", "every problem of every item, by path (`[3].payload.phone`)"],
] as const;

export const paths: Record<string, unknown> = {
  "/v1/programs/{programId}/integrations/api": {
    ...operation("post", {
      operationId: "createOrUpdateResources",
      summary: "Create/Update resources",
      description:
        "Creates or updates customers. The batch is validated whole and applied atomically: all items or none. " +
        "`user` items (or `users`, JeriCommerce's name) create or update customers; `loyalty` items set an existing " +
        'customer\'s balance (through one `adjust` ledger entry of the difference, reason "opening balance (migration)"; ' +
        "none when it is already that balance), memberSince and tier (by name), as a program moving from JeriCommerce " +
        "needs. User items apply first, so one batch can create customers and set their loyalty. A batch of user items " +
        "without renames is one statement; one with loyalty items takes the ledger's locked path.",
      tag: "Integrations",
      parameters: [programId, idempotencyKey],
      body: { schema: "IntegrationBatch", required: true },
      success: { status: 201, description: "Applied. No body." },
      errors: [
        ...INTEGRATOR_ERRORS,
        ...WRITE_ERRORS,
        ...BATCH_ERRORS,
        ["conflict", "an e-mail, externalCustomerId or loyaltyCustomerId already belongs to another customer"],
        "referral_code_unknown",
        "referral_self",
        "referral_already_recorded",
        "referral_after_first_earn",
        ["unknown_tier", "a `loyalty` item's tierStatus, by path (`[3].payload.tierStatus`)"],
        [
          "customer_not_found",
          "a `loyalty` item names no live customer (an erased one included), by path (`[3].email`)",
        ],
      ],
    }),
    // DELETE ignores Idempotency-Key (erasing twice is erasing once): neither the header nor its 409 apply.
    ...operation("delete", {
      operationId: "deleteResources",
      summary: "Delete resources",
      description:
        "Erases the customers' personal data and makes them absent to every read; their ledger stays (anonymised) so program totals stay true. Unknown e-mails are ignored. Repeating it changes nothing.",
      tag: "Integrations",
      parameters: [programId],
      body: { schema: "DeleteBatch", required: true },
      success: { status: 204, description: "Erased. No body." },
      errors: [...INTEGRATOR_ERRORS, ...BODY_ERRORS, ...BATCH_ERRORS],
    }),
  },
  "/v1/programs/{programId}/orders/{orderId}/refund": operation("post", {
    operationId: "refundOrder",
    summary: "Refund an order",
    description:
      "Reverses the points the order earned (every `earn` entry sent with this `orderId`, whatever the customer), in full (no " +
      "`amount`) or in proportion to `amount`/`total`. Refunds add up: after each, the order's reversed points reach " +
      "floor(orderPoints × min(1, Σ amount/total)), less what earlier refunds and reversals already took, so refunding twice " +
      "never reverses twice and partial refunds reach at most the whole order. Points already spent are reported as `unrecovered` " +
      "(balances never go below zero); reversed earns lower the tier points of their period.",
    tag: "Points",
    parameters: [programId, orderId, idempotencyKey],
    body: { schema: "RefundRequest", required: true },
    success: { status: 200, description: "What the refund reversed.", schema: "RefundResult" },
    errors: [
      ...INTEGRATOR_ERRORS,
      ["order_not_found", "no `earn` entry of this program carries the orderId"],
      ...WRITE_ERRORS,
      ["validation_failed", "amount without total (or the reverse), or amount above total"],
    ],
  }),
  "/v1/programs/{programId}/customers/{email}": operation("get", {
    operationId: "getCustomerByEmail",
    summary: "Get customer details by email",
    description: "The customer with its user data, loyalty data (balance) and tier.",
    tag: "Customers",
    parameters: [programId, email],
    success: { status: 200, description: "The customer.", schema: "Customer" },
    errors: CUSTOMER_ERRORS,
  }),
  "/v1/programs/{programId}/customers/{email}/token": operation("get", {
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
  }),
  ...customerPaths,
  "/v1/programs/{programId}/tiers": operation("get", {
    operationId: "listTiers",
    summary: "Tiers",
    description: "The program's tiers, lowest requiredPoints first.",
    tag: "Tiers",
    parameters: [programId],
    success: { status: 200, description: "The program's tiers by requiredPoints.", schema: "TierList" },
    errors: INTEGRATOR_ERRORS,
  }),
  "/v1/programs/{programId}/rewards": operation("get", {
    operationId: "listRewards",
    summary: "Rewards",
    description: "The program's active rewards, cheapest first.",
    tag: "Rewards",
    parameters: [programId],
    success: { status: 200, description: "Active rewards, cheapest first.", schema: "RewardList" },
    errors: INTEGRATOR_ERRORS,
  }),
  ...mePaths,
  ...redemptionPaths,
  ...jeriCommercePaths,
};
