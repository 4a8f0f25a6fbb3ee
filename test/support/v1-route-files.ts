import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The /v1 routes as the files under app/v1 declare them: each route file's path under /v1 (`:name` for a
 * `[name]` segment) and the HTTP methods it exports, sorted. The tables that must match app/v1 (edge-guard's
 * V1_ROUTES, the OpenAPI document's paths) are checked against this.
 */
export function v1RouteFiles(): [pattern: string, methods: string[]][] {
  const root = path.resolve(import.meta.dirname, "../../app/v1");
  const found: [string, string[]][] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const pattern = path
          .relative(root, dir)
          .split(path.sep)
          .map((s) => s.replace(/^\[(\w+)\]$/, ":$1"))
          .join("/");
        const methods = [
          ...readFileSync(full, "utf8").matchAll(
            /^export (?:const|(?:async )?function) (GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)\b/gm,
          ),
        ].map((m) => m[1]!);
        found.push([pattern, methods.sort()]);
      }
    }
  };
  walk(root);
  return found;
}
