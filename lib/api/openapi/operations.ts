import "server-only";
import { DEFAULT_PAGE_SIZE, MAX_CURSOR_LENGTH, MAX_PAGE_SIZE } from "../schemas/common";
import { IDEMPOTENCY_KEY } from "../header-names";
import { EXAMPLE_IDS, REQUEST_EXAMPLES, RESPONSE_EXAMPLES } from "./examples";
import { successHeaders } from "./headers";
import { problems, type ErrorSpec } from "./problems";

/**
 * The building blocks of the document's operations (./paths*.ts): parameters, and `operation`, which adds
 * what every operation has (its tag, the success headers, the examples by operationId, the error responses).
 */

export const TAGS = [
  { name: "Integrations", description: "Create, update and erase customers in batches." },
  { name: "Customers", description: "Read a customer, and give a front-end a customer token." },
  { name: "Points", description: "Balances and the points ledger." },
  { name: "Earning flows", description: "Earn points by the rules of a flow configured in the dashboard." },
  { name: "Rewards", description: "The reward catalogue and redemptions." },
  { name: "Coupons", description: "Codes from coupon pools." },
  { name: "Notifications", description: "Push notifications to a customer's devices, through the program's endpoint." },
  { name: "Tiers", description: "The program's tiers." },
  { name: "Customer (me)", description: "Calls a front-end makes as a customer, with a customer token." },
  {
    name: "Webhooks",
    description:
      "What the service posts to your endpoints (dashboard: Webhooks, Push endpoint), signed with the endpoint's secret.",
  },
] as const;
export type Tag = Exclude<(typeof TAGS)[number]["name"], "Webhooks">;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

export const programId = {
  name: "programId",
  in: "path",
  required: true,
  description:
    "The program's id (a UUID, in any case). With an api-key, only the key's own program: another is 404 `not_found`.",
  schema: { type: "string" },
  example: EXAMPLE_IDS.programId,
};
export const email = {
  name: "email",
  in: "path",
  required: true,
  description: "The customer's e-mail, URL-encoded; compared case-insensitively.",
  schema: { type: "string", maxLength: 254 },
  example: EXAMPLE_IDS.email,
};
export const rewardId = {
  name: "rewardId",
  in: "path",
  required: true,
  description: "The reward's id. A value that is not a UUID is an unknown reward (404 `reward_not_found`).",
  schema: { type: "string" },
  example: EXAMPLE_IDS.rewardId,
};
export const flowKey = {
  name: "flowKey",
  in: "path",
  required: true,
  description: "The earning flow's key, as set when the flow was created.",
  schema: { type: "string" },
  example: "store-purchase",
};
export const transactionId = {
  name: "transactionId",
  in: "path",
  required: true,
  description:
    "The ledger entry's id (`transaction.id`). A value that is not a UUID is an unknown one (404 `transaction_not_found`).",
  schema: { type: "string" },
  example: EXAMPLE_IDS.transactionId,
};
export const orderId = {
  name: "orderId",
  in: "path",
  required: true,
  description: "The `orderId` sent with increase balance or an earning-flow run (1 to 128 characters, URL-encoded).",
  schema: { type: "string", minLength: 1, maxLength: 128 },
  example: "1042",
};
export const idempotencyKey = {
  name: IDEMPOTENCY_KEY,
  in: "header",
  required: false,
  description:
    "Retries with the same key and body within 24 h replay the first outcome (marked `idempotent-replayed: true`) instead of acting twice; the same key with another body is 409 `idempotency_conflict`. 1 to 255 characters, else 400 `validation_failed`.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
  example: "order-1042",
};
/** `limit` and `cursor` of a ledger page (PageQuery in ./schemas/common.ts). */
export const pageParameters = [
  {
    name: "limit",
    in: "query",
    required: false,
    description: `Entries per page, 1 to ${MAX_PAGE_SIZE}, in decimal digits. Anything else is 400 \`validation_failed\`.`,
    schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  },
  {
    name: "cursor",
    in: "query",
    required: false,
    description: "`nextCursor` of the previous page; leave it out for the first (newest) page.",
    schema: { type: "string", maxLength: MAX_CURSOR_LENGTH },
  },
];

export const bearer = [{ customerToken: [] }];

export interface OperationSpec {
  operationId: string;
  summary: string;
  description: string;
  tag: Tag;
  parameters: unknown[];
  security?: unknown[];
  /** The request body's schema id; `required: false` when the route reads a left-out body as `{}`. */
  body?: { schema: string; required: boolean };
  /** The success answer: its status, description and body schema id (none for an empty answer). */
  success: { status: number; description: string; schema?: string };
  errors: readonly ErrorSpec[];
}

/** One operation, keyed by its method, with its examples (from ./examples.ts) and headers. */
export function operation(method: "get" | "post" | "delete", spec: OperationSpec) {
  const { operationId, success } = spec;
  const requestExamples = REQUEST_EXAMPLES[operationId];
  const responseExamples = RESPONSE_EXAMPLES[operationId];
  return {
    [method]: {
      operationId,
      summary: spec.summary,
      description: spec.description,
      tags: [spec.tag],
      ...(spec.security ? { security: spec.security } : {}),
      parameters: spec.parameters,
      ...(spec.body
        ? {
            requestBody: {
              required: spec.body.required,
              content: { "application/json": { schema: ref(spec.body.schema), examples: requestExamples } },
            },
          }
        : {}),
      responses: {
        [String(success.status)]: {
          description: success.description,
          headers: successHeaders(method),
          ...(success.schema
            ? { content: { "application/json": { schema: ref(success.schema), examples: responseExamples } } }
            : {}),
        },
        ...problems(spec.errors),
      },
    },
  };
}
