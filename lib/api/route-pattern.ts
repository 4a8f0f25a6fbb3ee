import "server-only";
import { isV1Path, matchV1 } from "./edge-guard";
import { V1_ROUTES } from "./v1-routes.generated";

/**
 * The route of a request path as a pattern, for metrics labels and access lines: a raw path (an email, a UUID)
 * would make one time series per customer. /v1 paths match the route table generated from app/v1 (the one the edge
 * guard uses to refuse unknown paths) and give OpenAPI's form, `/v1/programs/{programId}/customers/{email}`, and the
 * program id; other paths (the dashboard's JSON routes) keep their fixed segments and replace ids with `{id}`.
 */

/** Each route's label and where its `{programId}` segment is (-1: none), by its index in V1_ROUTES. */
const V1 = V1_ROUTES.map(([pattern]) => {
  const segments = pattern.split("/");
  return {
    label: `/v1/${segments.map((s) => (s.startsWith(":") ? `{${s.slice(1)}}` : s)).join("/")}`,
    programAt: segments.indexOf(":programId"),
  };
});

/** A segment that names a record rather than a route: a UUID, a number, an email, a long token. */
const ID_SEGMENT = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+|.*(@|%40).*|[\w-]{24,})$/i;

export interface RouteMatch {
  /** The pattern, e.g. `/v1/programs/{programId}/customers/{email}`. */
  route: string;
  /** The `{programId}` segment when the route has one. */
  programId?: string;
}

export function routeOf(pathname: string): RouteMatch {
  if (isV1Path(pathname)) {
    const segments = pathname.split("/").slice(2);
    const found = matchV1(segments);
    if (!found) return { route: "/v1/{unknown}" };
    const { label, programAt } = V1[found.index]!;
    return programAt === -1 ? { route: label } : { route: label, programId: segments[programAt] };
  }
  return {
    route:
      pathname
        .split("/")
        .map((s) => (ID_SEGMENT.test(s) ? "{id}" : s))
        .join("/") || "/",
  };
}
