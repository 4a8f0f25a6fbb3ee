import { z } from "zod";
import "./schemas"; // registers every schema with an id in zod's global registry

/**
 * The OpenAPI 3.1 document, generated from the zod schemas the handlers validate with.
 * Paths reference components by the ids given with `.meta({ id })` in schemas.ts.
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
        "then limited by the flow's caps. A capped run earns 0, answers 200 and names the cap in `capped`.",
      parameters: [programId, email, { name: "flowKey", in: "path", required: true, schema: { type: "string" } }, idempotencyKey],
      requestBody: { required: false, content: json("EarningFlowRun") },
      responses: {
        "200": { description: "What was earned.", content: json("EarningFlowResult") },
        ...customerErrors,
        ...writeErrors,
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
      description: "Public /v1 API for integrators. Authenticate every call with the `api-key` header.",
    },
    servers: [{ url: "/" }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "api-key" } },
    },
  });
  return cached;
}
