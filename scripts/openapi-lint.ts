/**
 * `npm run lint:openapi`: writes the OpenAPI document as /v1/openapi.json serves it (openApiDocument(); the server
 * URL is a deployment's public origin, here a placeholder one, as a local one would fail no-server-example.com) to a
 * temporary file and lints it with Redocly CLI under ./redocly.yaml: zero errors and zero
 * warnings, or a non-zero exit.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openApiDocument } from "@/lib/api/openapi/document";

const LINTED_ORIGIN = "https://loyalty.invalid";

const dir = mkdtempSync(path.join(tmpdir(), "openapi-"));
const file = path.join(dir, "openapi.json");
writeFileSync(file, `${JSON.stringify(JSON.parse(openApiDocument(LINTED_ORIGIN)), null, 2)}\n`);
const redocly = path.resolve(import.meta.dirname, "../node_modules/.bin/redocly");
const result = spawnSync(redocly, ["lint", file, "--max-problems", "200", "--format", "stylish"], {
  stdio: "inherit",
  env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
  cwd: path.resolve(import.meta.dirname, ".."),
});
rmSync(dir, { recursive: true, force: true });
process.exit(result.status ?? 1);
