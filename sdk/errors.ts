/**
 * The one error the client throws for an answer that is not a success: the API's problem details (RFC 9457,
 * API.md §1) as typed fields. `code` is one of the codes the OpenAPI document names (sdk/generated/operations.ts),
 * so a `switch` on it can be exhaustive; `isLoyaltyApiError(err, "decreaseBalance")` narrows it to the codes of that
 * one operation. A failure with no answer at all (network down, aborted) is rethrown as fetch threw it.
 */
import { OPERATION_IDS, type ErrorCode, type OperationErrorCodes, type OperationId } from "./generated/operations.js";

export type { ErrorCode, OperationErrorCodes, OperationId } from "./generated/operations.js";

/**
 * The client's own code for an error answer that is not a problem document of this API (for example a proxy's 502
 * page): `status` and `requestId` (when the header is there) are still set.
 */
export const UNEXPECTED_RESPONSE = "unexpected_response";

/** Every `code` a LoyaltyApiError may carry. */
export type LoyaltyErrorCode = ErrorCode | typeof UNEXPECTED_RESPONSE;

/** One problem in a rejected request, named by its JSON path (e.g. `[3].payload.phone`). */
export interface FieldProblem {
  path: string;
  message: string;
}

export class LoyaltyApiError<Code extends string = LoyaltyErrorCode> extends Error {
  override readonly name = "LoyaltyApiError";
  /** The HTTP status. */
  readonly status: number;
  /** The problem's stable code (API.md §1), or `unexpected_response`. */
  readonly code: Code;
  /** The problem's one-sentence explanation. */
  readonly detail: string;
  /** Every field problem by path (validation errors); empty otherwise. */
  readonly errors: readonly FieldProblem[];
  /** The request's id (the problem's `requestId`, else the `x-request-id` header): quote it to support. */
  readonly requestId: string | undefined;
  /** The operation that failed (its operationId in the document), when the call went through a documented route. */
  readonly operation: OperationId | undefined;
  /** Seconds the server asked to wait before retrying (429, 503), when it said. */
  readonly retryAfterSeconds: number | undefined;
  /** The Idempotency-Key the request carried (every POST has one): send it again to replay instead of acting twice. */
  readonly idempotencyKey: string | undefined;
  /** The answer's headers. */
  readonly headers: Headers;

  constructor(init: {
    status: number;
    code: Code;
    detail: string;
    errors?: readonly FieldProblem[] | undefined;
    requestId?: string | undefined;
    operation?: OperationId | undefined;
    retryAfterSeconds?: number | undefined;
    idempotencyKey?: string | undefined;
    headers?: Headers | undefined;
  }) {
    const request = init.requestId ? ` (request ${init.requestId})` : "";
    super(`${init.operation ? `${init.operation}: ` : ""}${init.status} ${init.code}: ${init.detail}${request}`);
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    this.requestId = init.requestId;
    this.operation = init.operation;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.idempotencyKey = init.idempotencyKey;
    this.headers = init.headers ?? new Headers();
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The operationId of `method` on the document's path template `schemaPath`. */
export function operationOf(method: string, schemaPath: string): OperationId | undefined {
  const key = `${method.toUpperCase()} ${schemaPath}`;
  return key in OPERATION_IDS ? OPERATION_IDS[key as keyof typeof OPERATION_IDS] : undefined;
}

/** The error for a failed answer: `body` is what it held (parsed JSON, text, or undefined when empty). */
export function apiErrorFrom(
  response: Response,
  body: unknown,
  context: { operation?: OperationId | undefined; idempotencyKey?: string | undefined } = {},
): LoyaltyApiError {
  const problem = isRecord(body) && typeof body.code === "string" ? body : undefined;
  const header = response.headers.get("x-request-id") ?? undefined;
  const retryAfter = response.headers.get("retry-after");
  const errors = Array.isArray(problem?.errors)
    ? problem.errors.filter(
        (e): e is FieldProblem => isRecord(e) && typeof e.path === "string" && typeof e.message === "string",
      )
    : [];
  return new LoyaltyApiError({
    status: response.status,
    code: (problem?.code as ErrorCode | undefined) ?? UNEXPECTED_RESPONSE,
    detail:
      typeof problem?.detail === "string"
        ? problem.detail
        : `The server answered ${response.status} ${response.statusText || "without a problem document"}.`,
    errors,
    requestId: typeof problem?.requestId === "string" ? problem.requestId : header,
    operation: context.operation,
    retryAfterSeconds: retryAfter && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined,
    idempotencyKey: context.idempotencyKey,
    headers: response.headers,
  });
}

/**
 * Whether `err` is a LoyaltyApiError; with `operation`, whether it is one from that operation, with `code` narrowed to
 * the codes the document lists for it.
 */
export function isLoyaltyApiError(err: unknown): err is LoyaltyApiError;
export function isLoyaltyApiError<O extends OperationId>(
  err: unknown,
  operation: O,
): err is LoyaltyApiError<OperationErrorCodes[O] | typeof UNEXPECTED_RESPONSE>;
export function isLoyaltyApiError(err: unknown, operation?: OperationId): boolean {
  return err instanceof LoyaltyApiError && (operation === undefined || err.operation === operation);
}
