import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { absolute, v1RouteModules } from "../../scripts/v1-routes";

test("the committed modules generated from app/v1 are current (else: npm run routes:generate)", async () => {
  for (const { file, text } of await v1RouteModules()) {
    assert.equal(readFileSync(absolute(file), "utf8"), text, `${file} is stale`);
  }
});
