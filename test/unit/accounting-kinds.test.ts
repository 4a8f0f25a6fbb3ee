/**
 * Every ledger type of lib/domain/vocabulary.ts is named by a rule of the points accounting (lib/domain/accounting.ts
 * KIND_RULES), so a new type cannot fall silently into "adjusted"; and the balance columns' signs are the effects
 * the report's invariant states.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CHANGES_BALANCE, COLUMN_SIGN, FLOW_COLUMNS, KIND_RULES } from "@/lib/domain/accounting";
import { LEDGER_TYPES } from "@/lib/domain/vocabulary";

test("every ledger type has a rule", () => {
  for (const type of LEDGER_TYPES)
    assert.ok(
      KIND_RULES.some((r) => new RegExp(`e\\.type (= '${type}'|IN \\([^)]*'${type}')`).test(r.when)),
      `ledger type ${type} has a rule in KIND_RULES`,
    );
  for (const r of KIND_RULES) assert.ok(FLOW_COLUMNS.includes(r.column), `${r.column} is a column`);
});

test("the signs are the invariant's: closing = opening + earned − reversed − redeemed + cancelled − expired ± adjusted", () => {
  const effect = Object.fromEntries(FLOW_COLUMNS.filter((c) => CHANGES_BALANCE[c]).map((c) => [c, COLUMN_SIGN[c]]));
  assert.deepEqual(effect, {
    earned: 1,
    reversed: -1,
    redeemed: -1,
    redemptionsCancelled: 1,
    expired: -1,
    adjustedUp: 1,
    adjustedDown: -1,
  });
});
