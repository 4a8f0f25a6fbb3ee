import "server-only";
import {
  CUSTOMER_ERRORS,
  INTEGRATOR_ERRORS,
  ME_ERRORS,
  problems,
  WRITE_ERRORS,
  type ErrorSpec,
} from "./openapi-problems";

/**
 * The one place where the /v1 operations are described for the OpenAPI document (lib/api/openapi.ts): one entry
 * per route file export under app/v1 (test/unit/openapi-routes.test.ts keeps the two in step). Request and
 * response bodies reference the zod schemas by their `.meta({ id })`; error responses come from the catalogue.
 */

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (id: string) => ({ "application/json": { schema: ref(id) } });

const programId = { name: "programId", in: "path", required: true, schema: { type: "string" } };
const email = {
  name: "email",
  in: "path",
  required: true,
  description: "The customer's e-mail, URL-encoded; compared case-insensitively.",
  schema: { type: "string", maxLength: 254 },
};
const rewardId = { name: "rewardId", in: "path", required: true, schema: { type: "string", format: "uuid" } };
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Retries with the same key and body within 24 h replay the first outcome instead of acting twice.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};
const bearer = [{ customerToken: [] }];

const REDEEM_ERRORS = [
  "reward_not_found",
  "insufficient_balance",
  "reward_out_of_stock",
  "reward_inactive",
] as const satisfies readonly ErrorSpec[];

const balanceMove = (operationId: string, summary: string, description: string, conflict: ErrorSpec) => ({
  post: {
    operationId,
    summary,
    description,
    parameters: [programId, email, idempotencyKey],
    requestBody: { required: true, content: json("PointsChange") },
    responses: {
      "200": { description: "The new balance and the ledger entry written.", content: json("BalanceResult") },
      ...problems([...CUSTOMER_ERRORS, ...WRITE_ERRORS, conflict]),
    },
  },
});

export const paths: Record<string, unknown> = {
  "/v1/programs/{programId}/integrations/api": {
    post: {
      operationId: "createOrUpdateResources",
      summary: "Create/Update resources",
      description: "Creates or updates customers. The batch is validated whole and applied atomically.",
      parameters: [programId, idempotencyKey],
      requestBody: { required: true, content: json("IntegrationBatch") },
      responses: {
        "201": { description: "Applied. No body." },
        ...problems([
          ...INTEGRATOR_ERRORS,
          ...WRITE_ERRORS,
          "unsupported_feature",
          ["conflict", "an e-mail or externalCustomerId already belongs to another customer"],
          ["payload_too_large", "1 MiB"],
        ]),
      },
    },
    delete: {
      operationId: "deleteResources",
      summary: "Delete resources",
      description:
        "Erases the customers' personal data and makes them absent to every read; their ledger stays (anonymised) so program totals stay true. Unknown e-mails are ignored.",
      parameters: [programId],
      requestBody: { required: true, content: json("DeleteBatch") },
      responses: {
        "204": { description: "Erased." },
        ...problems([...INTEGRATOR_ERRORS, ...WRITE_ERRORS, "unsupported_feature"]),
      },
    },
  },
  "/v1/programs/{programId}/customers/{email}": {
    get: {
      operationId: "getCustomerByEmail",
      summary: "Get customer details by email",
      parameters: [programId, email],
      responses: { "200": { description: "The customer.", content: json("Customer") }, ...problems(CUSTOMER_ERRORS) },
    },
  },
  "/v1/programs/{programId}/customers/{email}/balance/increase": balanceMove(
    "increaseBalance",
    "Increase balance",
    "Adds points as an `earn` ledger entry; earned points count towards tiers.",
    ["balance_limit", "2,147,483,647"],
  ),
  "/v1/programs/{programId}/customers/{email}/balance/decrease": balanceMove(
    "decreaseBalance",
    "Decrease balance",
    "Takes points as a `spend` ledger entry, oldest points first. Never below zero.",
    "insufficient_balance",
  ),
  "/v1/programs/{programId}/customers/{email}/transactions": {
    get: {
      operationId: "listTransactions",
      summary: "Points history",
      description: "The customer's ledger, newest first.",
      parameters: [
        programId,
        email,
        {
          name: "limit",
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 1, maximum: 200, default: 50 },
        },
        {
          name: "cursor",
          in: "query",
          required: false,
          description: "`nextCursor` of the previous page.",
          schema: { type: "string" },
        },
      ],
      responses: {
        "200": { description: "A page of ledger entries.", content: json("TransactionPage") },
        ...problems([...CUSTOMER_ERRORS, ["validation_failed", "an invalid limit or cursor"]]),
      },
    },
  },
  "/v1/programs/{programId}/customers/{email}/earning-flows/{flowKey}": {
    post: {
      operationId: "executeEarningFlow",
      summary: "Execute a custom earning flow for a customer",
      description:
        "Points = fixed points, or pointsPerUnit × the flow's numeric param, times the current tier's factor, rounded down; " +
        "then limited by the flow's caps. A capped run earns 0, answers 200 and names the cap in `capped`. " +
        "`params` carries only the parameters the flow declares (numbers within their bounds); anything else is refused, and the " +
        "ledger entry's metadata keeps `flowKey` and the declared values only.",
      parameters: [
        programId,
        email,
        { name: "flowKey", in: "path", required: true, schema: { type: "string" } },
        idempotencyKey,
      ],
      requestBody: { required: false, content: json("EarningFlowRun") },
      responses: {
        "200": { description: "What was earned.", content: json("EarningFlowResult") },
        ...problems([
          ...CUSTOMER_ERRORS,
          "earning_flow_not_found",
          ...WRITE_ERRORS,
          [
            "validation_failed",
            "an undeclared param, a non-number or nested value, a value out of its bounds, a missing required param or too many keys, " +
              "each listed by path (`params.amount`)",
          ],
        ]),
      },
    },
  },
  "/v1/programs/{programId}/tiers": {
    get: {
      operationId: "listTiers",
      summary: "Tiers",
      parameters: [programId],
      responses: {
        "200": { description: "The program's tiers by requiredPoints.", content: json("TierList") },
        ...problems(INTEGRATOR_ERRORS),
      },
    },
  },
  "/v1/programs/{programId}/customers/{email}/token": {
    get: {
      operationId: "getCustomerToken",
      summary: "Get a customer token",
      description:
        "A signed token (HS256 JWT) valid one hour, for a front-end widget to call the `/me` routes as this customer.",
      parameters: [programId, email],
      responses: { "200": { description: "The token.", content: json("CustomerToken") }, ...problems(CUSTOMER_ERRORS) },
    },
  },
  "/v1/programs/{programId}/customers/{email}/rewards/{rewardId}/redeem": {
    post: {
      operationId: "redeemReward",
      summary: "Redeem a reward",
      description:
        "Spends the reward's costPoints through the ledger (type `redeem`), takes one unit of stock and issues a redemption code, atomically. The body is optional.",
      parameters: [programId, email, rewardId, idempotencyKey],
      requestBody: { required: false, content: json("RedeemRequest") },
      responses: {
        "201": { description: "Redeemed.", content: json("RedeemResult") },
        ...problems([...CUSTOMER_ERRORS, ...WRITE_ERRORS, ...REDEEM_ERRORS]),
      },
    },
  },
  "/v1/programs/{programId}/customers/{email}/coupons": {
    post: {
      operationId: "assignCoupon",
      summary: "Assign a coupon",
      description: "Gives the customer the next free code of the pool; a code never goes to two customers.",
      parameters: [programId, email, idempotencyKey],
      requestBody: { required: true, content: json("CouponRequest") },
      responses: {
        "201": { description: "Assigned.", content: json("CouponResult") },
        ...problems([...CUSTOMER_ERRORS, "coupon_pool_not_found", ...WRITE_ERRORS, "coupon_pool_empty"]),
      },
    },
  },
  "/v1/programs/{programId}/customers/{email}/notifications": {
    post: {
      operationId: "sendPushNotification",
      summary: "Send a push notification",
      description:
        "`suppressed` when the customer turned the category off, else `queued` and delivered to the program's push endpoint as signed JSON.",
      parameters: [programId, email, idempotencyKey],
      requestBody: { required: true, content: json("NotificationRequest") },
      responses: {
        "202": { description: "Accepted.", content: json("NotificationResult") },
        ...problems([...CUSTOMER_ERRORS, ...WRITE_ERRORS]),
      },
    },
  },
  "/v1/programs/{programId}/rewards": {
    get: {
      operationId: "listRewards",
      summary: "Rewards",
      parameters: [programId],
      responses: {
        "200": { description: "Active rewards, cheapest first.", content: json("RewardList") },
        ...problems(INTEGRATOR_ERRORS),
      },
    },
  },
  "/v1/programs/{programId}/me": {
    get: {
      operationId: "getMe",
      summary: "The token's customer",
      security: bearer,
      parameters: [programId],
      responses: { "200": { description: "The customer.", content: json("Customer") }, ...problems(ME_ERRORS) },
    },
  },
  "/v1/programs/{programId}/me/transactions": {
    get: {
      operationId: "getMyTransactions",
      summary: "The token's customer's points history",
      security: bearer,
      parameters: [
        programId,
        { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200 } },
        { name: "cursor", in: "query", schema: { type: "string" } },
      ],
      responses: {
        "200": { description: "A page of ledger entries.", content: json("TransactionPage") },
        ...problems(ME_ERRORS),
      },
    },
  },
  "/v1/programs/{programId}/me/rewards/{rewardId}/redeem": {
    post: {
      operationId: "redeemMyReward",
      summary: "The token's customer redeems a reward",
      security: bearer,
      parameters: [programId, rewardId, idempotencyKey],
      requestBody: { required: false, content: json("RedeemRequest") },
      responses: {
        "201": { description: "Redeemed.", content: json("RedeemResult") },
        ...problems([...ME_ERRORS, ...WRITE_ERRORS, ...REDEEM_ERRORS]),
      },
    },
  },
};
