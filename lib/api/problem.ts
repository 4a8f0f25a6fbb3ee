import { AppError, type FieldProblem } from "@/lib/errors";
import type { z } from "zod";

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** `[3].payload.phone` from zod's `[3, "payload", "phone"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
}

export function zodProblems(error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

export function validationFailed(errors: FieldProblem[], code = "validation_failed"): AppError {
  const n = errors.length;
  return new AppError(400, code, `The request has ${n} invalid field${n === 1 ? "" : "s"}.`, errors);
}

export function problemResponse(err: AppError, requestId: string, headers: Headers): Response {
  headers.set("content-type", "application/problem+json");
  for (const [k, v] of Object.entries(err.headers ?? {})) headers.set(k, v);
  const body = {
    type: `https://loyalty.example/problems/${err.code}`,
    title: TITLES[err.status] ?? "Error",
    status: err.status,
    detail: err.message,
    code: err.code,
    ...(err.errors ? { errors: err.errors } : {}),
    requestId,
  };
  return new Response(JSON.stringify(body), { status: err.status, headers });
}

export const internalError = () => new AppError(500, "internal", "Something went wrong on our side. Quote the requestId if you contact support.");
