import { v1RouteFolders } from "../../scripts/v1-routes";

/**
 * The /v1 routes as the files under app/v1 declare them: each route file's path under /v1 (`:name` for a
 * `[name]` segment) and the HTTP methods it exports, sorted. The tables that must match app/v1 (the generated
 * V1_ROUTES, the OpenAPI document's paths) are checked against this.
 */
export function v1RouteFiles(): [pattern: string, methods: string[]][] {
  return v1RouteFolders().map(({ pattern, methods }) => [pattern, methods]);
}
