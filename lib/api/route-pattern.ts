import "server-only";
import { isV1Path } from "./edge-guard";
import { V1_ROUTES } from "./v1-routes.generated";

/**
 * The route of a request path as a pattern, for metrics labels and access lines: a raw path (an email, a UUID)
 * would make one time series per customer. /v1 paths match the route table generated from app/v1 (the one the edge
 * guard uses to refuse unknown paths) and give OpenAPI's form, `/v1/programs/{programId}/customers/{email}`, and the
 * program id; other paths (the dashboard's JSON routes) keep their fixed segments and replace ids with `{id}`.
 */

const V1 = V1_ROUTES.map(([pattern]) => {
  const segments = pattern.split("/");
  return {
    segments,
    label: `/v1/${segments.map((s) => (s.startsWith(":") ? `{${s.slice(1)}}` : s)).join("/")}`,
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
    for (const r of V1) {
      if (r.segments.length !== segments.length) continue;
      if (!r.segments.every((s, i) => (s.startsWith(":") ? segments[i] !== "" : s === segments[i]))) continue;
      const at = r.segments.indexOf(":programId");
      return at === -1 ? { route: r.label } : { route: r.label, programId: segments[at] };
    }
    return { route: "/v1/{unknown}" };
  }
  return {
    route:
      pathname
        .split("/")
        .map((s) => (ID_SEGMENT.test(s) ? "{id}" : s))
        .join("/") || "/",
  };
}
