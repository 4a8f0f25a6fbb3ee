/**
 * Earning-flow parameter declarations (lib/domain/flow-params.ts): what a flow declares, what a run may send, the
 * CLI's `--params` text, and the migration that gave every existing flow a declaration.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pgliteExtensions } from "@/lib/db/pglite-extensions";
import {
  checkRunParams,
  declareFlowParams,
  describeFlowParam,
  parseFlowParamsFlag,
  storedFlowParams,
  type FlowParam,
} from "@/lib/domain/flow-params";
import { EarningFlowForm } from "@/lib/staff/forms/earning-flows";

const amount: FlowParam = { name: "amount", type: "number", min: 1, max: 500, required: true };
const items: FlowParam = { name: "items", type: "number", min: 1, max: 50, required: false };
const paths = (problems: { path: string }[]) => problems.map((p) => p.path);

test("a run keeps only declared values; undeclared, missing, out-of-bounds and non-numbers are each named by path", () => {
  assert.deepEqual(checkRunParams([amount, items], { amount: 12.5, items: 3 }), {
    values: { amount: 12.5, items: 3 },
    problems: [],
  });
  assert.deepEqual(checkRunParams([amount, items], { amount: 1 }), { values: { amount: 1 }, problems: [] });
  const run = checkRunParams([amount, items], { email: 5, items: 51, note: "x" });
  assert.deepEqual(paths(run.problems), ["params.email", "params.items", "params.note", "params.amount"]);
  assert.match(run.problems[0]!.message, /not a parameter of this flow \(it takes amount, items\)/);
  assert.equal(run.problems.at(-1)!.message, "is required");
  for (const bad of [0, 500.5, -1, Number.NaN, Infinity, "12", null, [1], { v: 1 }]) {
    assert.deepEqual(paths(checkRunParams([amount], { amount: bad }).problems), ["params.amount"], String(bad));
  }
  assert.deepEqual(paths(checkRunParams([], { x: 1 }).problems), ["params.x"]);
  // Names inherited from Object.prototype are not "given".
  const constructor: FlowParam = { ...amount, name: "constructor" };
  assert.deepEqual(paths(checkRunParams([constructor], {}).problems), ["params.constructor"]);
});

test("a declaration gets defaults, refuses duplicates and inverted bounds, and always declares the per-unit param as required", () => {
  assert.deepEqual(declareFlowParams([{ name: "store", required: false }], null), {
    params: [{ name: "store", type: "number", min: 0, max: 1_000_000_000, required: false }],
    problems: [],
  });
  assert.deepEqual(declareFlowParams([], "amount").params, [
    { name: "amount", type: "number", min: 0, max: 1_000_000_000, required: true },
  ]);
  assert.deepEqual(declareFlowParams([{ name: "amount", min: 1, max: 500 }], "amount").params, [amount]);
  const bad = declareFlowParams(
    [
      { name: "a" },
      { name: "a" },
      { name: "b", min: 5, max: 4 },
      { name: "1x" },
      { name: "c", max: 2e9 },
      { name: "amount", required: false },
    ],
    "amount",
  );
  assert.deepEqual(paths(bad.problems), [
    "params[1].name",
    "params[2].max",
    "params[3].name",
    "params[4].max",
    "params[5].required",
  ]);
  const many = Array.from({ length: 11 }, (_, i) => ({ name: `p${i}` }));
  assert.deepEqual(paths(declareFlowParams(many, null).problems), ["params"]);
  assert.deepEqual(
    paths(declareFlowParams(many.slice(0, 10), "amount").problems),
    ["params"],
    "the added per-unit param counts too",
  );
});

test("the dashboard form reports declaration problems at the fields' paths", () => {
  const result = EarningFlowForm.safeParse({
    key: "k",
    points: 5,
    params: [{ name: "a" }, { name: "a", min: 3, max: 2 }],
  });
  assert.equal(result.success, false);
  assert.deepEqual(
    result.error!.issues.map((i) => i.path.join(".")),
    ["params.1.name", "params.1.max"],
  );
  assert.equal(
    EarningFlowForm.safeParse({ key: "k", points: 5, params: [{ name: "a", min: 1, max: 2, required: false }] })
      .success,
    true,
  );
});

test("the CLI's --params text: name[?][:min..max], comma-separated", () => {
  assert.deepEqual(parseFlowParamsFlag("amount:0..100000, store?:1..9999,items?"), {
    params: [
      { name: "amount", required: true, min: 0, max: 100000 },
      { name: "store", required: false, min: 1, max: 9999 },
      { name: "items", required: false },
    ],
  });
  for (const bad of ["amount:1", "amount:a..b", "amount:1..2..3", "amount?:-1..5"])
    assert.ok("message" in parseFlowParamsFlag(bad), bad);
  assert.equal(describeFlowParam(items), "items 1–50 (optional)");
  assert.deepEqual(storedFlowParams([amount]), [amount]);
  assert.throws(() => storedFlowParams({}));
});

test("the migration declares each existing flow's per-unit param, and nothing for fixed flows", async () => {
  const dir = path.resolve(import.meta.dirname, "../../prisma/migrations");
  const names = readdirSync(dir)
    .filter((n) => existsSync(path.join(dir, n, "migration.sql")))
    .sort();
  const mine = names.findIndex((n) => n.endsWith("_flow_params_and_idempotency_customer"));
  assert.ok(mine > 0);
  const db = await PGlite.create({ extensions: await pgliteExtensions() });
  try {
    for (const name of names.slice(0, mine)) await db.exec(readFileSync(path.join(dir, name, "migration.sql"), "utf8"));
    const [program] = (await db.query<{ id: string }>(`INSERT INTO "Program" (name) VALUES ('P') RETURNING id`)).rows;
    await db.query(
      `INSERT INTO "EarningFlow" ("programId", key, points, "pointsPerUnit", param) VALUES ($1, 'visit', 10, NULL, NULL), ($1, 'purchase', NULL, 0.5, 'amount')`,
      [program!.id],
    );
    for (const name of names.slice(mine)) await db.exec(readFileSync(path.join(dir, name, "migration.sql"), "utf8"));
    const rows = (
      await db.query<{ key: string; params: unknown }>(`SELECT key, params FROM "EarningFlow" ORDER BY key`)
    ).rows;
    assert.deepEqual(rows, [
      { key: "purchase", params: [{ name: "amount", type: "number", min: 0, max: 1_000_000_000, required: true }] },
      { key: "visit", params: [] },
    ]);
    assert.deepEqual(storedFlowParams(rows[0]!.params), [
      { name: "amount", type: "number", min: 0, max: 1_000_000_000, required: true },
    ]);
  } finally {
    await db.close();
  }
});
