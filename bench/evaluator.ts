/**
 * The campaign evaluator alone (lib/domain/campaigns/evaluate.ts), in this process on one core: evaluations per
 * second of one event against one campaign whose conditions are a 10-leaf tree (numbers, strings, a datetime, an
 * items field, customer fields; the tree compiled once per version, as the live path does), beside the same
 * decision written by hand as one JavaScript expression (the floor no interpreter beats). Target ≥ 100,000/s.
 *
 *   npx tsx bench/evaluator.ts          # prints the figures; the `evaluator` row of `npm run bench` runs the same
 */
import { attrTypesOf } from "@/lib/domain/campaigns/conditions";
import type { CampaignDefinition, EventAttributes } from "@/lib/domain/campaigns/definition";
import { evaluate, type CampaignVersionState, type EvaluationInput } from "@/lib/domain/campaigns/evaluate";

export const EVALUATOR_TARGET = 100_000;

const DECLARED: EventAttributes = {
  total: { type: "number", required: true },
  channel: { type: "string" },
  coupon: { type: "string" },
  gift: { type: "boolean" },
  placedAt: { type: "datetime" },
  items: { type: "items", fields: { sku: { type: "string" }, price: { type: "number" } } },
};

const definition: CampaignDefinition = {
  trigger: { event: "purchase" },
  conditions: {
    all: [
      { attr: "event.total", op: "gte", value: 100 },
      { attr: "event.channel", op: "in", value: ["web", "app"] },
      { not: { attr: "event.gift", op: "eq", value: true } },
      { attr: "event.placedAt", op: "gte", value: "2026-01-01T00:00:00.000Z" },
      { attr: "event.items[].sku", op: "contains", value: "shoe" },
      { attr: "event.items[].price", op: "gt", value: 50 },
      {
        any: [
          { attr: "customer.tier", op: "eq", value: "Gold" },
          { attr: "customer.balance", op: "gte", value: 10_000 },
          { attr: "customer.memberDays", op: "gt", value: 365 },
        ],
      },
      { attr: "customer.language", op: "ne", value: "xx" },
    ],
  },
  effects: [{ type: "award_points", per: "event.total", rate: 1, round: "down", max: 500 }],
  limits: { perCustomer: { count: 3, window: "day" }, budgetPoints: 1_000_000 },
  schedule: { daysOfWeek: [1, 2, 3, 4, 5, 6, 7], hours: { from: "06:00", to: "23:00" } },
  priority: 1,
  stacking: "stack",
};

const campaign: CampaignVersionState = {
  campaignId: "c1",
  version: 1,
  definition,
  attrTypes: attrTypesOf(definition.conditions, DECLARED),
  budgetUsed: 0,
  customerUses: 0,
};

const input: EvaluationInput = {
  event: {
    type: "purchase",
    occurredAt: new Date("2026-11-25T12:00:00.000Z"),
    attributes: {
      total: 140,
      channel: "web",
      gift: false,
      placedAt: "2026-11-25T11:59:00.000Z",
      items: [
        { sku: "sock-1", price: 5 },
        { sku: "shoe-42", price: 90 },
      ],
    },
  },
  customer: { tier: "Gold", tierFactor: 1.5, balance: 200, memberSince: new Date("2025-01-01"), language: "es" },
  campaigns: [campaign],
  now: new Date("2026-11-25T12:00:00.000Z"),
  timeZone: "Europe/Madrid",
};

/** The same decision by hand: what the tree says, with nothing interpreted. */
function byHand(i: EvaluationInput): boolean {
  const a = i.event.attributes as {
    total: number;
    channel: string;
    gift: boolean;
    placedAt: string;
    items: { sku: string; price: number }[];
  };
  const c = i.customer;
  return (
    a.total >= 100 &&
    (a.channel === "web" || a.channel === "app") &&
    a.gift !== true &&
    Date.parse(a.placedAt) >= Date.parse("2026-01-01T00:00:00.000Z") &&
    a.items.some((x) => x.sku.includes("shoe")) &&
    a.items.some((x) => x.price > 50) &&
    (c.tier === "Gold" || c.balance >= 10_000 || (i.now.getTime() - c.memberSince.getTime()) / 86_400_000 > 365) &&
    c.language !== "xx"
  );
}

function rate(fn: () => unknown, ms: number): number {
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) {
    for (let k = 0; k < 1000; k++) fn();
    n += 1000;
  }
  return (n / ms) * 1000;
}

export function measureEvaluator(ms = 3000) {
  const result = evaluate(input);
  if (result.applied[0]?.points !== 210 || !byHand(input)) throw new Error("evaluator bench: the case does not apply");
  rate(() => evaluate(input), 500); // warm-up
  rate(() => byHand(input), 500);
  const evaluator = rate(() => evaluate(input), ms);
  const hand = rate(() => byHand(input), ms);
  return { evaluator, hand, ratio: evaluator / hand, pass: evaluator >= EVALUATOR_TARGET };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const m = measureEvaluator();
  console.log(
    `evaluator: ${Math.round(m.evaluator).toLocaleString("en")} evaluations/s (10-leaf tree, one core); ` +
      `by hand: ${Math.round(m.hand).toLocaleString("en")}/s; ratio ${m.ratio.toFixed(3)}; target ≥ ${EVALUATOR_TARGET.toLocaleString("en")}/s: ${m.pass ? "PASS" : "FAIL"}`,
  );
}
