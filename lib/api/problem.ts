import { AppError, type FieldProblem } from "@/lib/errors";
import type { z } from "zod";

export const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** `[3].payload.phone` from zod's `[3, "payload", "phone"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

export function zodProblems(error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

/** Defined with the other error factories; re-exported for the edge's callers. */
export { internalError, validationFailed } from "@/lib/errors";

/** The RFC 9457 body of an error, as JSON text. */
export function problemJson(err: AppError, requestId: string): string {
  return JSON.stringify({
    type: `https://loyalty.example/problems/${err.code}`,
    title: TITLES[err.status] ?? "Error",
    status: err.status,
    detail: err.message,
    code: err.code,
    ...(err.errors ? { errors: err.errors } : {}),
    requestId,
  });
}

export function problemResponse(err: AppError, requestId: string, headers: Headers): Response {
  headers.set("content-type", "application/problem+json");
  for (const [k, v] of Object.entries(err.headers ?? {})) headers.set(k, v);
  return new Response(problemJson(err, requestId), { status: err.status, headers });
}
