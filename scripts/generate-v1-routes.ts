/**
 * `npm run routes:generate` (run by sdk:generate, so by postinstall, typecheck and build): writes the route table and
 * the OpenAPI operation table from the folders under app/v1 (./v1-routes.ts). Both are committed, so a clone
 * type-checks as it is; test/unit/v1-routes-generated.test.ts fails when one is stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { absolute, v1RouteModules } from "./v1-routes";

for (const { file, text } of await v1RouteModules()) {
  let current: string | undefined;
  try {
    current = readFileSync(absolute(file), "utf8");
  } catch {
    current = undefined;
  }
  // An unchanged table leaves the file, and tsc's cache, alone.
  if (current !== text) writeFileSync(absolute(file), text);
}
