import { z } from "zod";
import "./schemas/all"; // registers every schema with an id in zod's global registry

/**
 * The OpenAPI 3.1 document, generated from the zod schemas the handlers validate with.
 * Paths reference components by the ids given with `.meta({ id })` in lib/api/schemas/*.
 */

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (id: string) => ({ "application/json": { schema: ref(id) } });
const problem = (description: string) => ({ description, content: { "application/problem+json": { schema: ref("Problem") } } });

const programId = { name: "programId", in: "path", required: true, schema: { type: "string" } };
const email = {
  name: "email",
  in: "path",
  required: true,
  description: "The customer's e-mail, URL-encoded; compared case-insensitively.",
  schema: { type: "string", maxLength: 254 },
};
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Retries with the same key and body within 24 h replay the first outcome instead of acting twice.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};
const commonErrors = {
  "401": problem("Missing, unknown or revoked api-key (`unauthorized`)."),
  "404": problem("Unknown program, or a program the key does not belong to (`not_found`)."),
  "429": problem("Rate limit exceeded (`rate_limited`); see Retry-After."),
  "500": problem("Unexpected error (`internal`); no details are leaked."),
};

const paths: Record<string, unknown> = {
  "/v1/programs/{programId}/integrations/api": {
    post: {
      operationId: "createOrUpdateResources",
      summary: "Create/Update resources",
      description: "Creates or updates customers. The batch is validated whole and applied atomically.",
      parameters: [programId, idempotencyKey],
      requestBody: { required: true, content: json("IntegrationBatch") },
      responses: {
        "201": { description: "Applied. No body." },
        "400": problem("Invalid body (`validation_failed`, `unsupported_feature`, `invalid_json`); every problem listed with its path."),
        "409": problem("An e-mail or externalCustomerId already belongs to another customer (`conflict`), or `idempotency_conflict`."),
        "413": problem("Body larger than 1 MiB (`payload_too_large`)."),
        "415": problem("Body not sent as application/json (`unsupported_media_type`)."),
        ...commonErrors,
      },
    },
  },
  "/v1/programs/{programId}/customers/{email}": {
    get: {
      operationId: "getCustomerByEmail",
      summary: "Get customer details by email",
      parameters: [programId, email],
      responses: {
        "200": { description: "The customer.", content: json("Customer") },
        ...commonErrors,
        "404": problem("No such customer (`customer_not_found`) or program (`not_found`)."),
      },
    },
  },
};

const customerErrors = {
  ...commonErrors,
  "404": problem("No such customer (`customer_not_found`) or program (`not_found`)."),
};
const writeErrors = {
  "400": problem("Invalid body (`validation_failed`, `invalid_json`); every problem listed with its path."),
  "409": problem("`idempotency_conflict`: the Idempotency-Key was used with a different body."),
  "415": problem("Body not sent as application/json (`unsupported_media_type`)."),
};

const balanceMove = (operationId: string, summary: string, description: string, conflicts: string) => ({
  post: {
    operationId,
    summary,
    description,
    parameters: [programId, email, idempotencyKey],
    requestBody: { required: true, content: json("PointsChange") },
    responses: {
      "200": { description: "The new balance and the ledger entry written.", content: json("BalanceResult") },
      ...customerErrors,
      ...writeErrors,
      "409": problem(conflicts),
    },
  },
});

Object.assign(paths, {
  "/v1/programs/{programId}/customers/{email}/balance/increase": balanceMove(
    "increaseBalance",
    "Increase balance",
    "Adds points as an `earn` ledger entry; earned points count towards tiers.",
    "`balance_limit` (balance would exceed 2,147,483,647) or `idempotency_conflict`.",
  ),
  "/v1/programs/{programId}/customers/{email}/balance/decrease": balanceMove(
    "decreaseBalance",
    "Decrease balance",
    "Takes points as a `spend` ledger entry, oldest points first. Never below zero.",
    "`insufficient_balance` (nothing written) or `idempotency_conflict`.",
  ),
  "/v1/programs/{programId}/customers/{email}/transactions": {
    get: {
      operationId: "listTransactions",
      summary: "Points history",
      description: "The customer's ledger, newest first.",
      parameters: [
        programId,
        email,
        { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
        { name: "cursor", in: "query", required: false, description: "`nextCursor` of the previous page.", schema: { type: "string" } },
      ],
      responses: {
        "200": { description: "A page of ledger entries.", content: json("TransactionPage") },
        "400": problem("Invalid limit or cursor (`validation_failed`)."),
        ...customerErrors,
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
      parameters: [programId, email, { name: "flowKey", in: "path", required: true, schema: { type: "string" } }, idempotencyKey],
      requestBody: { required: false, content: json("EarningFlowRun") },
      responses: {
        "200": { description: "What was earned.", content: json("EarningFlowResult") },
        ...customerErrors,
        ...writeErrors,
        "400": problem(
          "Invalid body (`validation_failed`, `invalid_json`): an undeclared param, a non-number or nested value, a value out of its " +
            "bounds, a missing required param or too many keys, each listed by path (`params.amount`).",
        ),
        "404": problem("No such customer (`customer_not_found`), flow (`earning_flow_not_found`) or program (`not_found`)."),
      },
    },
  },
  "/v1/programs/{programId}/tiers": {
    get: {
      operationId: "listTiers",
      summary: "Tiers",
      parameters: [programId],
      responses: { "200": { description: "The program's tiers by requiredPoints.", content: json("TierList") }, ...commonErrors },
    },
  },
});

const rewardId = { name: "rewardId", in: "path", required: true, schema: { type: "string", format: "uuid" } };
const bearer = [{ customerToken: [] }];
const meErrors = {
  "401": problem("Missing, invalid or expired customer token, or an api-key sent instead (`unauthorized`)."),
  "429": problem("Rate limit exceeded (`rate_limited`)."),
  "500": problem("Unexpected error (`internal`)."),
};
const redeemErrors = {
  "404": problem("No such customer (`customer_not_found`) or reward (`reward_not_found`)."),
  "409": problem("`insufficient_balance`, `reward_out_of_stock`, `reward_inactive` or `idempotency_conflict`; nothing is changed."),
};

Object.assign(paths, {
  "/v1/programs/{programId}/customers/{email}/token": {
    get: {
      operationId: "getCustomerToken",
      summary: "Get a customer token",
      description: "A signed token (HS256 JWT) valid one hour, for a front-end widget to call the `/me` routes as this customer.",
      parameters: [programId, email],
      responses: { "200": { description: "The token.", content: json("CustomerToken") }, ...customerErrors },
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
      responses: { "201": { description: "Redeemed.", content: json("RedeemResult") }, ...customerErrors, ...writeErrors, ...redeemErrors },
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
        ...customerErrors,
        ...writeErrors,
        "404": problem("No such customer (`customer_not_found`) or pool (`coupon_pool_not_found`)."),
        "409": problem("`coupon_pool_empty` or `idempotency_conflict`."),
      },
    },
  },
  "/v1/programs/{programId}/customers/{email}/notifications": {
    post: {
      operationId: "sendPushNotification",
      summary: "Send a push notification",
      description: "`suppressed` when the customer turned the category off, else `queued` and delivered to the program's push endpoint as signed JSON.",
      parameters: [programId, email, idempotencyKey],
      requestBody: { required: true, content: json("NotificationRequest") },
      responses: { "202": { description: "Accepted.", content: json("NotificationResult") }, ...customerErrors, ...writeErrors },
    },
  },
  "/v1/programs/{programId}/rewards": {
    get: {
      operationId: "listRewards",
      summary: "Rewards",
      parameters: [programId],
      responses: { "200": { description: "Active rewards, cheapest first.", content: json("RewardList") }, ...commonErrors },
    },
  },
  "/v1/programs/{programId}/me": {
    get: {
      operationId: "getMe",
      summary: "The token's customer",
      security: bearer,
      parameters: [programId],
      responses: { "200": { description: "The customer.", content: json("Customer") }, ...meErrors },
    },
  },
  "/v1/programs/{programId}/me/transactions": {
    get: {
      operationId: "getMyTransactions",
      summary: "The token's customer's points history",
      security: bearer,
      parameters: [programId, { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200 } }, { name: "cursor", in: "query", schema: { type: "string" } }],
      responses: { "200": { description: "A page of ledger entries.", content: json("TransactionPage") }, ...meErrors },
    },
  },
  "/v1/programs/{programId}/me/rewards/{rewardId}/redeem": {
    post: {
      operationId: "redeemMyReward",
      summary: "The token's customer redeems a reward",
      security: bearer,
      parameters: [programId, rewardId, idempotencyKey],
      requestBody: { required: false, content: json("RedeemRequest") },
      responses: { "201": { description: "Redeemed.", content: json("RedeemResult") }, ...meErrors, ...writeErrors, ...redeemErrors },
    },
  },
});

(paths["/v1/programs/{programId}/integrations/api"] as Record<string, unknown>).delete = {
  operationId: "deleteResources",
  summary: "Delete resources",
  description:
    "Erases the customers' personal data and makes them absent to every read; their ledger stays (anonymised) so program totals stay true. Unknown e-mails are ignored.",
  parameters: [programId],
  requestBody: { required: true, content: json("DeleteBatch") },
  responses: {
    "204": { description: "Erased." },
    ...writeErrors,
    ...commonErrors,
    "400": problem("Invalid body (`validation_failed`, `invalid_json`), or only unknown `feature` values (`unsupported_feature`)."),
  },
};

let cached: string | undefined;

export function openApiDocument(): string {
  if (cached) return cached;
  const { schemas } = z.toJSONSchema(z.globalRegistry, { target: "draft-2020-12", io: "input", uri: (id) => `#/components/schemas/${id}` });
  const components = Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _s, $id: _i, ...rest } = schema as Record<string, unknown>;
      return [id, rest];
    }),
  );
  cached = JSON.stringify({
    openapi: "3.1.0",
    info: {
      title: "Loyalty Program API",
      version: "1.0.0",
      description:
        "Public /v1 API for integrators. Authenticate every call with the `api-key` header. On any path, a malformed " +
        "percent-encoding is 400 `invalid_path`, an unknown path 404 `not_found`, and a method the path does not serve " +
        "405 `method_not_allowed` with `Allow`; OPTIONS answers 204 with `Allow`.",
    },
    servers: [{ url: "/" }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "api-key" },
        customerToken: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "From Get a customer token." },
      },
    },
  });
  return cached;
}
