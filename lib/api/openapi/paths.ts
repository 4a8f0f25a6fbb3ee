import "server-only";
import { METHODS, operation, type RouteOperations } from "./operation";
import { V1_OPERATIONS } from "./v1-operations.generated";

/**
 * The document's operations, collected from the openapi.ts beside each route file under app/v1 (listed by
 * ./v1-operations.generated.ts, which scripts/generate-v1-routes.ts writes from the folders). Each exports an
 * OperationSpec by the name of the method its route.ts exports (test/unit/openapi-routes.test.ts keeps the two in
 * step). The routes come in the table's order, the JeriCommerce aliases last, so that a reader of the reference meets
 * the operations they alias first. Request and response bodies reference the zod schemas by their `.meta({ id })`;
 * error responses come from the catalogue, examples from ./examples.ts.
 */

/** A route's operations by method, in METHODS order. */
const declared = (operations: RouteOperations) =>
  METHODS.flatMap((method) => {
    const spec = operations[method];
    return spec ? [{ method, spec }] : [];
  });

const isAlias = (operations: RouteOperations) => declared(operations).some(({ spec }) => spec.aliasOf);

/** The documented routes in the document's order. */
const ORDERED = [...V1_OPERATIONS.filter(([, o]) => !isAlias(o)), ...V1_OPERATIONS.filter(([, o]) => isAlias(o))];

export const paths: Record<string, unknown> = Object.fromEntries(
  ORDERED.map(([path, operations]) => [
    path,
    Object.assign(
      {},
      ...declared(operations).map(({ method, spec }) =>
        operation(method.toLowerCase() as Lowercase<typeof method>, spec),
      ),
    ),
  ]),
);

/** Each operation's method, path and summary, in the document's order: the list of endpoints a page shows. */
export const ENDPOINTS: readonly { method: string; path: string; summary: string }[] = ORDERED.flatMap(
  ([path, operations]) => declared(operations).map(({ method, spec }) => ({ method, path, summary: spec.summary })),
);
