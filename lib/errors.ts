/** One problem in a rejected request, named by its JSON path (e.g. `[3].payload.phone`). */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * An error whose `code` is part of the public contract. Domain code throws these; the HTTP edge turns
 * them into RFC 9457 problem details and the dashboard into inline messages. Anything else is a bug and
 * surfaces as a bare 500 `internal`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const notFound = (what = "resource") => new AppError(404, "not_found", `The ${what} was not found.`);
export const customerNotFound = () => new AppError(404, "customer_not_found", "No customer with this e-mail in this program.");
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(429, "rate_limited", "Too many requests; retry later.", undefined, { "Retry-After": String(retryAfterSeconds) });
/** A webhook or push URL that deliveries must not go to (lib/net/delivery-target.ts). */
export const urlNotAllowed = (path: string, message: string) =>
  new AppError(400, "url_not_allowed", "Deliveries cannot be sent to this URL.", [{ path, message }]);
/** A dashboard balance adjustment larger than the staff member's role may make (lib/domain/adjustment-ceilings.ts). */
export const adjustmentAboveCeiling = (message: string) =>
  new AppError(403, "adjustment_above_ceiling", `${message}.`, [{ path: "points", message }]);
/** A path segment that is not valid percent-encoded UTF-8: no route could read it (API.md §1). */
export const invalidPath = () => new AppError(400, "invalid_path", "The path has a malformed percent-encoding.");
/** The path names an endpoint that does not serve this method; `allow` lists those it does. */
export const methodNotAllowed = (allow: string) =>
  new AppError(405, "method_not_allowed", "This endpoint does not serve this method; the Allow header lists those it does.", undefined, { Allow: allow });
export const conflict = (message: string, errors?: FieldProblem[]) => new AppError(409, "conflict", message, errors);
/** A staff write sent from another site (or without Origin and Sec-Fetch-Site): refused before it is read. */
export const invalidCallbackUrl = () => new AppError(400, "invalid_callback_url", "callbackUrl must be a page of this app.");
export const crossSiteRequest = () => new AppError(403, "cross_site_request", "Staff changes are accepted only from the dashboard's own pages.");

/** 400 listing every field problem by path (or a more precise `code` for the same shape, e.g. `unsupported_feature`). */
export function validationFailed(errors: FieldProblem[], code = "validation_failed"): AppError {
  const n = errors.length;
  return new AppError(400, code, `The request has ${n} invalid field${n === 1 ? "" : "s"}.`, errors);
}
/** Seconds a client should wait before retrying while the database is unavailable: a restart or failover takes a few. */
export const DB_RETRY_AFTER_SECONDS = 2;
/** The database is unreachable or went away (lib/db/outage.ts): nothing was changed, or it is replayable by Idempotency-Key. */
export const serviceUnavailable = () =>
  new AppError(503, "service_unavailable", "The service is temporarily unavailable; retry shortly (POSTs with the same Idempotency-Key).", undefined, {
    "Retry-After": String(DB_RETRY_AFTER_SECONDS),
  });

/**
 * PostgreSQL unique_violation, however the driver adapter wrapped it. `constraint` is text that names the
 * violated constraint (from the driver's metadata or message), for callers to test with `includes`.
 */
export function uniqueViolation(err: unknown): { constraint: string } | null {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const e = current as Record<string, unknown>;
    if (e.code === "23505" || e.code === "P2002" || e.originalCode === "23505" || e.kind === "UniqueConstraintViolation") {
      const text = [e.constraint, e.meta, e.originalMessage, e.message]
        .map((v) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v)))
        .join(" ");
      return { constraint: text };
    }
    current = e.cause ?? (e.meta as Record<string, unknown> | undefined)?.driverAdapterError;
  }
  return null;
}
