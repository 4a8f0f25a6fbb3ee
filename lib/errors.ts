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
export const conflict = (message: string, errors?: FieldProblem[]) => new AppError(409, "conflict", message, errors);
/** A staff write sent from another site (or without Origin and Sec-Fetch-Site): refused before it is read. */
export const invalidCallbackUrl = () => new AppError(400, "invalid_callback_url", "callbackUrl must be a page of this app.");
export const crossSiteRequest = () => new AppError(403, "cross_site_request", "Staff changes are accepted only from the dashboard's own pages.");

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
