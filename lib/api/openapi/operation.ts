import "server-only";
import { REQUEST_EXAMPLES, RESPONSE_EXAMPLES } from "./examples";
import { successHeaders } from "./headers";
import { problems, type ErrorSpec } from "./problems";

/**
 * What an operation declares (OperationSpec, in an openapi.ts beside its route file under app/v1), and `operation`,
 * which adds what every operation has: its tag, the success headers, the examples by operationId (./examples.ts), the
 * error responses (./problems.ts). Parameters are in ./parameters.ts.
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
  {
    name: "Test programs",
    description:
      "A program's clock; a test program's clock moves forward on request, running every timer due on the way.",
  },
  {
    name: "Campaigns",
    description: "Customer events in, campaign rules decide, effects out: event types, campaigns and their versions.",
  },
  {
    name: "Segments",
    description: "Declared customer attributes, and segments: named filters over customers and their event history.",
  },
  { name: "Reports", description: "The program's points accounting, per day, in points and money." },
  { name: "Customer (me)", description: "Calls a front-end makes as a customer, with a customer token." },
  {
    name: "Webhooks",
    description:
      "What the service posts to your endpoints (dashboard: Webhooks, Push endpoint), signed with the endpoint's secret.",
  },
] as const;
export type Tag = Exclude<(typeof TAGS)[number]["name"], "Webhooks">;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

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
  /** The operationId this one restates in another vendor's shape (API.md §3): the document lists it after the others. */
  aliasOf?: string;
}

/** The methods an operation may have, in the order a path lists them. */
export const METHODS = ["GET", "PUT", "POST", "DELETE"] as const;

/** What an app/v1 openapi.ts exports: an OperationSpec for each method its route.ts exports, by the same name. */
export type RouteOperations = Partial<Record<(typeof METHODS)[number], OperationSpec>>;

/** One operation, keyed by its method, with its examples (from ./examples.ts) and headers. */
export function operation(method: Lowercase<(typeof METHODS)[number]>, spec: OperationSpec) {
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
