import "server-only";
import { ERROR_CATALOGUE, statusOf, type ErrorCode } from "@/lib/errors";
import { problemHeaders } from "./headers";
import { TITLES } from "../problem";

/**
 * The one place where the OpenAPI document's error responses are written: an operation lists the codes it can
 * answer with, and each code's status and meaning come from the catalogue (lib/errors.ts), so a code cannot be
 * documented under a status it is never sent with. A code may carry a note saying what it means for this operation.
 */

export type ErrorSpec = ErrorCode | readonly [code: ErrorCode, note: string];

/** Every call: the database may be unreachable (lib/api/edge.ts answers 503), and a bug is a 500. */
const EVERY_CALL = ["rate_limited", "internal", "service_unavailable"] as const satisfies readonly ErrorSpec[];
/** Every integrator call: the api-key, the program in the path (another program's looks absent), the rate limit. */
export const INTEGRATOR_ERRORS = [
  "unauthorized",
  ["api_key_mode_mismatch", "a test key (`lk_test_`) on a live program, or a live key on a test program"],
  ["not_found", "the program of the path: unknown, malformed, or not the api-key's"],
  ...EVERY_CALL,
] as const satisfies readonly ErrorSpec[];
/** An integrator call about one campaign of the program (`{campaignId}`). */
export const CAMPAIGN_ERRORS = [
  "unauthorized",
  ["not_found", "the program of the path (unknown, malformed, or not the api-key's), or the campaign"],
  ...EVERY_CALL,
] as const satisfies readonly ErrorSpec[];
/** An integrator call about the customer of the `{email}` segment. */
export const CUSTOMER_ERRORS = [...INTEGRATOR_ERRORS, "customer_not_found"] as const satisfies readonly ErrorSpec[];
/** A call with a customer token (/me): a token of another program is a 401, a malformed program id a 404. */
export const ME_ERRORS = [
  ["unauthorized", "a missing, invalid or expired customer token, one of another program, or an api-key sent instead"],
  ["not_found", "the program id of the path is not a UUID"],
  ...EVERY_CALL,
] as const satisfies readonly ErrorSpec[];
/** A JSON body (lib/api/json-body.ts), validated whole. */
export const BODY_ERRORS = [
  "validation_failed",
  "invalid_json",
  "unsupported_media_type",
  ["payload_too_large", "1 MiB"],
] as const satisfies readonly ErrorSpec[];
/** A POST with a JSON body, under an optional Idempotency-Key (whose length is checked: `validation_failed`). */
export const WRITE_ERRORS = [...BODY_ERRORS, "idempotency_conflict"] as const satisfies readonly ErrorSpec[];

const PROBLEM = "#/components/schemas/Problem";
const EXAMPLE_REQUEST_ID = "0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a";

/** A problem body as the server writes it (lib/api/problem.ts problemJson) for `code`. */
function exampleOf(code: ErrorCode) {
  const status = statusOf(code);
  const meaning = ERROR_CATALOGUE[code].meaning;
  return {
    type: `https://loyalty.example/problems/${code}`,
    title: TITLES[status] ?? "Error",
    status,
    detail: `${meaning[0]!.toUpperCase()}${meaning.slice(1)}.`,
    code,
    ...(code === "validation_failed"
      ? { errors: [{ path: "points", message: "Too small: expected number to be >=1" }] }
      : {}),
    requestId: EXAMPLE_REQUEST_ID,
  };
}

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
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: codes
            .map((c) => `\`${c}\`: ${ERROR_CATALOGUE[c].meaning}${notes.get(c) ? ` (${notes.get(c)})` : ""}.`)
            .join(" "),
          headers: problemHeaders(status),
          content: {
            "application/problem+json": {
              schema: { $ref: PROBLEM, type: "object", properties: { code: { type: "string", enum: codes } } },
              examples: { [codes[0]!]: { summary: ERROR_CATALOGUE[codes[0]!].meaning, value: exampleOf(codes[0]!) } },
            },
          },
        },
      ]),
  );
}
