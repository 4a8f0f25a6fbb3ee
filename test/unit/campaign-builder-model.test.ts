/**
 * The campaign builder's rows and the /v1 body they stand for (components/dashboard/campaigns/builder-model.ts): a
 * tree written as rows becomes the JSON the server checks, the JSON loads back into the same rows, and each row knows
 * the path the server's problems name it by (so a refusal shows at its row). The paths are checked against the
 * domain's own checker (lib/domain/campaigns/conditions.ts), not restated.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkConditions } from "@/lib/domain/campaigns/conditions";
import type { Condition, EventAttributes } from "@/lib/domain/campaigns/definition";
import {
  attributeChoices,
  childPath,
  conditionsOf,
  effectOf,
  effectRowOf,
  emptyEffect,
  emptyGroup,
  emptyLeaf,
  filterChoices,
  opsOf,
  rootPath,
  rowsOf,
  type GroupRow,
  type LeafRow,
} from "@/components/dashboard/campaigns/builder-model";

const purchase: EventAttributes = {
  total: { type: "number", required: true },
  channel: { type: "string" },
  items: { type: "items", fields: { sku: { type: "string" }, price: { type: "number" } } },
};
const choices = attributeChoices(purchase);
const leaf = (attr: string, op: LeafRow["op"], value: string, not = false): LeafRow => ({
  ...emptyLeaf(attr, op),
  value,
  not,
});

test("the attribute picker offers the trigger's attributes, its items' fields and the customer's fields, typed", () => {
  assert.deepEqual(
    choices.map((c) => [c.attr, c.type]),
    [
      ["event.total", "number"],
      ["event.channel", "string"],
      ["event.items[].sku", "string"],
      ["event.items[].price", "number"],
      ["customer.tier", "string"],
      ["customer.balance", "number"],
      ["customer.memberDays", "number"],
      ["customer.language", "string"],
    ],
  );
});

test("rows become the tree the API takes (values typed by the attribute), and the tree loads back into the rows", () => {
  const root: GroupRow = emptyGroup("all", [
    leaf("customer.tier", "eq", "Gold"),
    { ...emptyGroup("any", [leaf("event.total", "gte", "100"), leaf("event.channel", "in", "web, app")]), not: true },
    leaf("event.items[].sku", "exists", "false"),
  ]);
  const tree = conditionsOf(root, choices);
  const expected: Condition = {
    all: [
      { attr: "customer.tier", op: "eq", value: "Gold" },
      {
        not: {
          any: [
            { attr: "event.total", op: "gte", value: 100 },
            { attr: "event.channel", op: "in", value: ["web", "app"] },
          ],
        },
      },
      { attr: "event.items[].sku", op: "exists", value: false },
    ],
  };
  assert.deepEqual(tree, expected);
  assert.deepEqual(checkConditions(tree!, purchase), []);
  assert.deepEqual(conditionsOf(rowsOf(tree), choices), expected);
  assert.equal(conditionsOf(emptyGroup(), choices), null);
});

test("each row's path is the one the server names its problems by", () => {
  const bad = leaf("event.total", "contains", "x");
  const inner = { ...emptyGroup("any", [leaf("event.channel", "eq", "web"), bad]), not: true };
  const root = emptyGroup("all", [leaf("customer.tier", "eq", "Gold"), inner]);
  const innerPath = childPath(root, rootPath(root), 1, inner);
  const badPath = childPath(inner, innerPath, 1, bad);
  assert.equal(badPath, "conditions.all[1].not.any[1]");
  const problems = checkConditions(conditionsOf(root, choices)!, purchase).map((p) => p.path);
  assert.ok(problems.includes(`${badPath}.op`), problems.join(", "));
});

test("effect rows become the API's effects and load back", () => {
  const rows = [
    { ...emptyEffect("fixed"), points: "50" },
    { ...emptyEffect("per"), per: "event.total", rate: "1.5", round: "up" as const, max: "500", tierFactor: false },
    { ...emptyEffect("multiply"), factor: "2" },
    { ...emptyEffect("coupon"), couponPoolId: "0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a" },
  ];
  const effects = rows.map(effectOf);
  assert.deepEqual(effects, [
    { type: "award_points", points: 50 },
    { type: "award_points", per: "event.total", rate: 1.5, round: "up", max: 500, tierFactor: false },
    { type: "multiply_points", factor: 2 },
    { type: "assign_coupon", couponPoolId: "0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a" },
  ]);
  assert.deepEqual(
    effects.map((e) => effectOf(effectRowOf(e))),
    effects,
  );
});

test("a segment's rows (event history with windows, declared attributes) become the filter JSON and load back", () => {
  // The customer fields as the server hands them to the page (lib/domain/segments/filter.ts CUSTOMER_FIELDS).
  const fields = { tier: "string", balance: "number" } as const;
  const picker = filterChoices(fields, { score: "number" }, [{ type: "purchase", attributes: purchase }]);
  assert.deepEqual(
    picker.map((c) => [c.attr, c.type, c.group]),
    [
      ["customer.tier", "string", "Customer"],
      ["customer.balance", "number", "Customer"],
      ["customer.score", "number", "Customer"],
      ["events.purchase.count", "number", "Event history"],
      ["events.purchase.sum.total", "number", "Event history"],
      ["events.purchase.lastAt", "datetime", "Event history"],
    ],
  );
  assert.ok(picker.every((c) => !!c.window === (c.group === "Event history")));
  const root: GroupRow = emptyGroup("all", [
    leaf("customer.tier", "eq", "Gold"),
    { ...leaf("events.purchase.count", "eq", "0"), window: " P90D " },
    leaf("customer.score", "gte", "50"),
    { ...leaf("events.purchase.sum.total", "gt", "100"), window: "" },
  ]);
  const filter = conditionsOf(root, picker);
  assert.deepEqual(filter, {
    all: [
      { attr: "customer.tier", op: "eq", value: "Gold" },
      { attr: "events.purchase.count", op: "eq", value: 0, window: "P90D" },
      { attr: "customer.score", op: "gte", value: 50 },
      { attr: "events.purchase.sum.total", op: "gt", value: 100 },
    ],
  });
  assert.deepEqual(
    rowsOf(filter).children.map((r) => (r.kind === "leaf" ? r.window : null)),
    ["", "P90D", "", ""],
  );
  // Problems are named under the segment body's `filter`.
  const negated = { ...emptyGroup("all", [leaf("customer.tier", "eq", "Gold")]), not: true };
  assert.equal(childPath(negated, rootPath(negated, "filter"), 0, negated.children[0]!), "filter.not.all[0]");
});

test("a campaign's picker adds declared customer attributes and customer.segment (in, nin only)", () => {
  const picker = attributeChoices(purchase, { score: "number" }, true);
  const segment = picker.find((c) => c.attr === "customer.segment");
  assert.deepEqual(opsOf(segment), ["in", "nin"]);
  assert.deepEqual(
    opsOf(picker.find((c) => c.attr === "customer.score")),
    opsOf(choices.find((c) => c.attr === "event.total")),
  );
  const tree = conditionsOf(emptyGroup("all", [leaf("customer.segment", "in", "a,b")]), picker);
  assert.deepEqual(checkConditions(tree, purchase, "conditions", { score: "number" }), []);
  assert.equal(
    attributeChoices(purchase, {}, false).some((c) => c.attr === "customer.segment"),
    false,
  );
});
