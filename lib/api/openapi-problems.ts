import "server-only";
import { ERROR_CATALOGUE, statusOf, type ErrorCode } from "@/lib/errors";

/**
 * The one place where the OpenAPI document's error responses are written: an operation lists the codes it can
 * answer with, and each code's status and meaning come from the catalogue (lib/errors.ts), so a code cannot be
 * documented under a status it is never sent with. A code may carry a note saying what it means for this operation.
 */

export type ErrorSpec = ErrorCode | readonly [code: ErrorCode, note: string];

/** Every integrator call: the api-key, the program in the path, the rate limit, a bug. */
export const INTEGRATOR_ERRORS = [
  "unauthorized",
  "not_found",
  "rate_limited",
  "internal",
] as const satisfies readonly ErrorSpec[];
/** An integrator call about the customer of the `{email}` segment. */
export const CUSTOMER_ERRORS = [...INTEGRATOR_ERRORS, "customer_not_found"] as const satisfies readonly ErrorSpec[];
/** A call with a customer token (/me). */
export const ME_ERRORS = [
  ["unauthorized", "or an api-key sent instead of a customer token"],
  "rate_limited",
  "internal",
] as const satisfies readonly ErrorSpec[];
/** A JSON body, validated whole, under an Idempotency-Key. */
export const WRITE_ERRORS = [
  "validation_failed",
  "invalid_json",
  "idempotency_conflict",
  "unsupported_media_type",
] as const satisfies readonly ErrorSpec[];

const PROBLEM = "#/components/schemas/Problem";

/** The error responses of an operation, by status: each names its codes (and an `enum` of them on `code`). */
export function problems(specs: readonly ErrorSpec[]): Record<string, unknown> {
  const notes = new Map<ErrorCode, string | undefined>();
  for (const spec of specs) {
    const [code, note] = typeof spec === "string" ? [spec, undefined] : spec;
    if (!notes.has(code) || note) notes.set(code, note ?? notes.get(code));
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of notes.keys()) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      String(status),
      {
        description: codes
          .map((c) => `\`${c}\`: ${ERROR_CATALOGUE[c].meaning}${notes.get(c) ? ` (${notes.get(c)})` : ""}.`)
          .join(" "),
        content: { "application/problem+json": { schema: { $ref: PROBLEM, properties: { code: { enum: codes } } } } },
      },
    ]),
  );
}
