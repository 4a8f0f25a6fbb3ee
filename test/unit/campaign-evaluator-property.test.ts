/**
 * The campaign evaluator (lib/domain/campaigns/evaluate.ts) against an independent, deliberately naive model of
 * API.md "Campaigns and events", on generated campaigns, events, customers, clocks and time zones: which campaigns
 * apply and in which order, every skipped reason, every effect's points. The model reads wall-clock time through
 * `toLocaleString` (the evaluator uses `formatToParts`), walks the condition tree as JSON and recomputes every rule
 * from the contract's text.
 *
 * FC_SEED and FC_RUNS override the fixed seed and the number of runs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { attrTypesOf, checkConditions } from "@/lib/domain/campaigns/conditions";
import type { CampaignDefinition, Condition, EventAttributes } from "@/lib/domain/campaigns/definition";
import { evaluate, type CampaignVersionState, type EvaluationInput } from "@/lib/domain/campaigns/evaluate";
import { checkCampaign } from "@/lib/domain/campaigns/validate";

const SEED = Number(process.env.FC_SEED ?? 20261125);
const RUNS = Number(process.env.FC_RUNS ?? 3000);

const DECLARED: EventAttributes = {
  total: { type: "number", required: true },
  channel: { type: "string" },
  vip: { type: "boolean" },
  placedAt: { type: "datetime" },
  items: { type: "items", fields: { sku: { type: "string" }, price: { type: "number" } } },
};
const ZONES = ["UTC", "Europe/Madrid", "America/New_York", "Asia/Kolkata", "Pacific/Auckland"];
const TIERS = [null, ["Silver", 1.25], ["Gold", 1.5]] as const;
const SKUS = ["shoe", "sock", "hat-shoe", "bag"];
const CHANNELS = ["web", "store", "app"];
const DATES = ["2026-11-20T10:00:00.000Z", "2026-11-25T00:00:00.000Z", "2026-12-01T23:59:00.000Z"];

// ------------------------------------------------------------------------------------------------------------
// Generators

const leaf: fc.Arbitrary<Condition> = fc.oneof(
  fc.record({
    attr: fc.constant("event.total"),
    op: fc.constantFrom("eq", "ne", "gt", "gte", "lt", "lte"),
    value: fc.integer({ min: 0, max: 200 }),
  }),
  fc.record({
    attr: fc.constant("event.total"),
    op: fc.constantFrom("in", "nin"),
    value: fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    attr: fc.constantFrom("event.channel", "customer.tier", "customer.language"),
    op: fc.constantFrom("eq", "ne", "contains"),
    value: fc.constantFrom(...CHANNELS, "Gold", "Silver", "es", "o", ""),
  }),
  fc.record({
    attr: fc.constantFrom("event.channel", "customer.tier"),
    op: fc.constantFrom("in", "nin"),
    value: fc.array(fc.constantFrom(...CHANNELS, "Gold", "Silver"), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ attr: fc.constantFrom("event.vip"), op: fc.constantFrom("eq", "ne"), value: fc.boolean() }),
  fc.record({
    attr: fc.constantFrom("event.placedAt"),
    op: fc.constantFrom("eq", "ne", "gt", "gte", "lt", "lte"),
    value: fc.constantFrom(...DATES),
  }),
  fc
    .record({
      attr: fc.constantFrom("event.items[].sku"),
      op: fc.constantFrom("eq", "ne", "contains", "in"),
      value: fc.constantFrom("shoe", "sock", ["bag", "hat-shoe"]),
    })
    .map((l) => ({
      ...l,
      value: l.op === "in" ? (Array.isArray(l.value) ? l.value : [l.value]) : Array.isArray(l.value) ? "shoe" : l.value,
    })),
  fc.record({
    attr: fc.constantFrom("event.items[].price"),
    op: fc.constantFrom("gt", "lte", "eq"),
    value: fc.integer({ min: 0, max: 100 }),
  }),
  fc.record({
    attr: fc.constantFrom("customer.balance", "customer.memberDays"),
    op: fc.constantFrom("gt", "gte", "lt", "lte", "eq"),
    value: fc.integer({ min: 0, max: 400 }),
  }),
  fc.record({
    attr: fc.constantFrom(
      "event.channel",
      "event.vip",
      "event.placedAt",
      "event.items[].sku",
      "customer.tier",
      "customer.language",
    ),
    op: fc.constant("exists"),
    value: fc.boolean(),
  }),
) as fc.Arbitrary<Condition>;

const tree: fc.Arbitrary<Condition> = fc.letrec<{ node: Condition }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ all: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ any: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie("node") }),
  ) as fc.Arbitrary<Condition>,
})).node;

const hhmm = fc
  .tuple(
    fc
      .constantFrom(0, 9, 12, 18, 23, fc.integer({ min: 0, max: 23 }))
      .chain((h) => (typeof h === "number" ? fc.constant(h) : h)),
    fc.constantFrom(0, 30, 59),
  )
  .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`);

const definition: fc.Arbitrary<CampaignDefinition> = fc.record({
  trigger: fc.record({ event: fc.constantFrom("purchase", "purchase", "visit") }),
  conditions: fc.option(tree, { nil: null }),
  effects: fc.array(
    fc.oneof(
      fc.record({
        type: fc.constant("award_points" as const),
        points: fc.integer({ min: 1, max: 500 }),
        tierFactor: fc.option(fc.boolean(), { nil: undefined }),
      }),
      fc.record({
        type: fc.constant("award_points" as const),
        per: fc.constant("event.total"),
        rate: fc.constantFrom(0.1, 0.5, 1, 1.5, 2.25, 10),
        round: fc.constantFrom("down" as const, "nearest" as const, "up" as const),
        max: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
        tierFactor: fc.option(fc.boolean(), { nil: undefined }),
      }),
      fc.record({ type: fc.constant("multiply_points" as const), factor: fc.constantFrom(1, 1.5, 2, 3) }),
      fc.record({ type: fc.constant("assign_coupon" as const), couponPoolId: fc.constantFrom("pool-a", "pool-b") }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  limits: fc.record(
    {
      perCustomer: fc.record({
        count: fc.integer({ min: 1, max: 3 }),
        window: fc.constantFrom("day", "week", "month", "year", "lifetime"),
      }),
      budgetPoints: fc.integer({ min: 1, max: 2000 }),
    },
    { requiredKeys: [] },
  ),
  schedule: fc.record(
    {
      startsAt: fc.constantFrom(...DATES),
      endsAt: fc.constantFrom("2026-11-26T00:00:00.000Z", "2027-01-01T00:00:00.000Z"),
      daysOfWeek: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
      hours: fc.record({ from: hhmm, to: hhmm }),
    },
    { requiredKeys: [] },
  ),
  priority: fc.integer({ min: 0, max: 3 }),
  stacking: fc.constantFrom("stack" as const, "exclusive" as const),
}) as fc.Arbitrary<CampaignDefinition>;

/** Instants on and beside the half hours, so that the edges of hours, days and dates are hit. */
const instant = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 0, max: 16 * 48 }),
      fc.integer({ min: 0, max: 15 }).chain((d) => fc.constantFrom(0, 18, 24, 36, 46).map((h) => d * 48 + h)),
    ),
    fc.constantFrom(0, 0, 29, 59),
    fc.constantFrom(0, 0, 59_999),
  )
  .map(([half, minute, ms]) => new Date(Date.parse("2026-11-18T00:00:00Z") + half * 1_800_000 + minute * 60_000 + ms));

const input: fc.Arbitrary<EvaluationInput> = fc.record({
  event: fc.record({
    type: fc.constantFrom("purchase", "purchase", "visit"),
    occurredAt: instant,
    attributes: fc.record(
      {
        total: fc.oneof(
          fc.integer({ min: 0, max: 200 }),
          fc.double({ min: 0, max: 200, noNaN: true }).map((x) => Math.round(x * 100) / 100),
        ),
        channel: fc.constantFrom(...CHANNELS),
        vip: fc.boolean(),
        placedAt: fc.constantFrom(...DATES),
        items: fc.array(
          fc.record(
            { sku: fc.constantFrom(...SKUS), price: fc.integer({ min: 0, max: 100 }) },
            { requiredKeys: ["sku"] },
          ),
          { maxLength: 3 },
        ),
      },
      { requiredKeys: ["total"] },
    ),
  }),
  customer: fc
    .record({
      tier: fc.constantFrom(...TIERS),
      balance: fc.integer({ min: 0, max: 400 }),
      memberSince: instant.map((d) => new Date(d.getTime() - 200 * 86_400_000)),
      language: fc.constantFrom(null, "es", "en"),
    })
    .map(({ tier, ...rest }) => ({ ...rest, tier: tier ? tier[0] : null, tierFactor: tier ? tier[1] : null })),
  campaigns: fc
    .array(
      fc.record({
        definition,
        budgetUsed: fc.integer({ min: 0, max: 2000 }),
        customerUses: fc.integer({ min: 0, max: 3 }),
      }),
      { maxLength: 6 },
    )
    .map((cs) =>
      cs.map((c, i): CampaignVersionState => ({
        campaignId: `c${i}`,
        version: 1 + (i % 2),
        definition: c.definition,
        attrTypes: attrTypesOf(c.definition.conditions, DECLARED),
        budgetUsed: c.budgetUsed,
        customerUses: c.customerUses,
      })),
    ),
  now: instant,
  timeZone: fc.constantFrom(...ZONES),
});

// ------------------------------------------------------------------------------------------------------------
// The model

function wallClock(at: Date, timeZone: string) {
  const text = at.toLocaleString("en-US", { timeZone, hour12: false }); // "11/25/2026, 23:05:00"
  const [date, time] = text.split(", ");
  const [month, day, year] = date!.split("/").map(Number);
  const [hour, minute] = time!.split(":").map(Number);
  const name = at.toLocaleDateString("en-US", { timeZone, weekday: "long" });
  const weekday = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"].indexOf(name) + 1;
  return { year: year!, month: month!, day: day!, hour: hour! % 24, minute: minute!, weekday };
}

function modelWindow(window: string, at: Date, timeZone: string) {
  const w = wallClock(at, timeZone);
  const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
  if (window === "lifetime") return "lifetime";
  if (window === "year") return `${w.year}`;
  if (window === "month") return `${w.year}-${two(w.month)}`;
  if (window === "day") return `${w.year}-${two(w.month)}-${two(w.day)}`;
  // ISO week: the week of the Thursday of this week; week 1 holds the year's first Thursday.
  let d = Date.UTC(w.year, w.month - 1, w.day) + (4 - w.weekday) * 86_400_000;
  const y = new Date(d).getUTCFullYear();
  let n = 0;
  while (new Date(d).getUTCFullYear() === y) {
    n++;
    d -= 7 * 86_400_000;
  }
  return `${y}-W${two(n)}`;
}

function typeOfAttr(attr: string): string {
  if (attr === "customer.balance" || attr === "customer.memberDays") return "number";
  if (attr.startsWith("customer.")) return "string";
  const [name, field] = attr.slice(6).split("[].");
  const d = DECLARED[name!]!;
  return d.type === "items" ? d.fields[field!]!.type : d.type;
}

function modelLeaf(l: { attr: string; op: string; value?: unknown }, values: unknown[]): boolean {
  const type = typeOfAttr(l.attr);
  const norm = (v: unknown) => (type === "datetime" ? new Date(v as string).getTime() : v);
  const one = (raw: unknown) => {
    const has = raw !== undefined && raw !== null;
    if (l.op === "exists") return has === l.value;
    if (!has) return false;
    const v = norm(raw) as number;
    const w = norm(l.value) as number;
    switch (l.op) {
      case "eq":
        return v === w;
      case "ne":
        return v !== w;
      case "gt":
        return v > w;
      case "gte":
        return v >= w;
      case "lt":
        return v < w;
      case "lte":
        return v <= w;
      case "in":
        return (l.value as unknown[]).some((x) => norm(x) === v);
      case "nin":
        return !(l.value as unknown[]).some((x) => norm(x) === v);
      case "contains":
        return String(raw).indexOf(String(l.value)) >= 0;
    }
    throw new Error(l.op);
  };
  if (l.attr.includes("[]")) return values.some(one);
  return one(values[0]);
}

function modelCondition(
  c: Condition | null,
  attrs: Record<string, unknown>,
  customer: Record<string, unknown>,
): boolean {
  if (!c) return true;
  if ("all" in c) return c.all.every((x) => modelCondition(x, attrs, customer));
  if ("any" in c) return c.any.some((x) => modelCondition(x, attrs, customer));
  if ("not" in c) return !modelCondition(c.not, attrs, customer);
  let values: unknown[];
  if (c.attr.startsWith("customer.")) values = [customer[c.attr.slice(9)]];
  else if (c.attr.includes("[].")) {
    const [name, field] = c.attr.slice(6).split("[].");
    const items = attrs[name!];
    values = Array.isArray(items) ? items.map((i) => (i as Record<string, unknown>)[field!]) : [];
  } else values = [attrs[c.attr.slice(6)]];
  return modelLeaf(c, values);
}

function model(inp: EvaluationInput) {
  const { event, customer, now, timeZone } = inp;
  const local = wallClock(event.occurredAt, timeZone);
  const minutes = local.hour * 60 + local.minute;
  const cust = {
    tier: customer.tier,
    balance: customer.balance,
    language: customer.language,
    memberDays: Math.floor((now.getTime() - customer.memberSince.getTime()) / 86_400_000),
  };
  const list = inp.campaigns
    .filter((c) => "event" in c.definition.trigger && c.definition.trigger.event === event.type)
    .slice()
    .sort((a, b) =>
      a.definition.priority !== b.definition.priority
        ? b.definition.priority - a.definition.priority
        : a.campaignId.localeCompare(b.campaignId),
    );
  const skipped: { campaignId: string; reason: string }[] = [];
  const chosen: CampaignVersionState[] = [];
  let blocked = false;
  for (const c of list) {
    const d = c.definition;
    const s = d.schedule;
    const t = event.occurredAt.getTime();
    let inside = true;
    if (s.startsAt && t < new Date(s.startsAt).getTime()) inside = false;
    if (s.endsAt && t >= new Date(s.endsAt).getTime()) inside = false;
    if (s.daysOfWeek && s.daysOfWeek.indexOf(local.weekday) < 0) inside = false;
    if (s.hours) {
      const [fh, fm] = s.hours.from.split(":").map(Number);
      const [th, tm] = s.hours.to.split(":").map(Number);
      const from = fh! * 60 + fm!;
      const to = th! * 60 + tm!;
      if (from <= to && !(minutes >= from && minutes < to)) inside = false;
      if (from > to && !(minutes >= from || minutes < to)) inside = false;
    }
    const pointsGiven = d.effects.some((e) => e.type === "award_points" || e.type === "multiply_points");
    let reason: string | null = null;
    if (blocked) reason = "exclusive_campaign_applied";
    else if (!inside) reason = "outside_schedule";
    else if (!modelCondition(d.conditions, event.attributes, cust)) reason = "condition_false";
    else if (d.limits.perCustomer && c.customerUses >= d.limits.perCustomer.count) reason = "customer_limit_reached";
    else if (d.limits.budgetPoints !== undefined && pointsGiven && c.budgetUsed >= d.limits.budgetPoints)
      reason = "budget_exhausted";
    if (reason) skipped.push({ campaignId: c.campaignId, reason });
    else {
      chosen.push(c);
      if (d.stacking === "exclusive") blocked = true;
    }
  }
  const award = (e: CampaignDefinition["effects"][number]) => {
    if (e.type !== "award_points") return 0;
    let base = 0;
    if ("points" in e) base = e.points;
    else {
      const v = event.attributes.total as number;
      const exact = Number((v * e.rate).toFixed(6));
      base = e.round === "down" ? Math.floor(exact) : e.round === "up" ? Math.ceil(exact) : Math.floor(exact + 0.5);
    }
    let p =
      e.tierFactor === false || customer.tierFactor === null ? base : Math.floor(base * customer.tierFactor + 1e-9);
    if ("max" in e && e.max !== undefined && p > e.max) p = e.max;
    return p;
  };
  let sum = 0;
  for (const c of chosen) for (const e of c.definition.effects) sum += award(e);
  const applied = chosen.map((c) => {
    const d = c.definition;
    let left = d.limits.budgetPoints === undefined ? Number.MAX_SAFE_INTEGER : d.limits.budgetPoints - c.budgetUsed;
    let points = 0;
    const effects = d.effects.map((e) => {
      if (e.type === "assign_coupon") return { type: e.type, couponPoolId: e.couponPoolId };
      let p = e.type === "award_points" ? award(e) : Math.floor(sum * (e.factor - 1) + 1e-9);
      if (p > left) p = left;
      if (p < 0) p = 0;
      left -= p;
      points += p;
      return { type: e.type, points: p };
    });
    return {
      campaignId: c.campaignId,
      version: c.version,
      points,
      window: d.limits.perCustomer ? modelWindow(d.limits.perCustomer.window, now, timeZone) : null,
      effects,
    };
  });
  return { applied, skipped };
}

test("generated conditions pass the validator for the declared event type", () => {
  fc.assert(
    fc.property(definition, (d) => {
      assert.deepEqual(
        checkCampaign(d, DECLARED),
        d.schedule.startsAt && d.schedule.endsAt && d.schedule.startsAt >= d.schedule.endsAt
          ? [{ path: "schedule.endsAt", message: "must be after startsAt" }]
          : [],
      );
    }),
    { seed: SEED, numRuns: RUNS },
  );
});

test("the evaluator agrees with the model on generated campaigns, events, customers, clocks and time zones", () => {
  fc.assert(
    fc.property(input, (inp) => {
      assert.deepEqual(evaluate(inp), model(inp));
    }),
    { seed: SEED, numRuns: RUNS, includeErrorInReport: true },
  );
});

test("the validator refuses unknown attributes and operators and wrong value types, by path", () => {
  const problems = checkConditions(
    {
      all: [
        { attr: "event.colour", op: "eq", value: "red" },
        { attr: "event.total", op: "contains", value: 3 },
        { attr: "event.total", op: "gt", value: "3" },
        {
          any: [
            { attr: "event.items[].sku", op: "like", value: "x" },
            { attr: "customer.height", op: "gt", value: 3 },
          ],
        },
        { attr: "event.items", op: "exists", value: true },
        { attr: "event.channel", op: "in", value: ["web", 3] },
      ],
    },
    DECLARED,
  );
  assert.deepEqual(
    problems.map((p) => p.path),
    [
      "conditions.all[0].attr",
      "conditions.all[1].op",
      "conditions.all[2].value",
      "conditions.all[3].any[0].op",
      "conditions.all[3].any[1].attr",
      "conditions.all[4].attr",
      "conditions.all[5].value[1]",
    ],
  );
});
