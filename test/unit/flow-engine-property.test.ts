/**
 * Earning flows on the campaign engine (lib/domain/earning-flows.ts `decideFlowRun`: the flow read as a campaign
 * version and decided by the one evaluator) against the flows' rule as it was written before they ran on the engine
 * (the deleted `RUN_WRITE` statement, restated here line by line from its CTEs `p0`, `p1`, `p2`, `earned`): base
 * points (fixed, or value × points per unit, unrounded) × the tier factor, rounded down with 1e-9; `once` stops a
 * run that would earn once the flow has an entry; `capTotal` then `capPerDay` cut to what is left (never below 0),
 * the later cut naming itself. Generated flows, tier factors, params (decimals too) and earlier uses, including caps
 * already exceeded (a flow redefined below what it gave) and uses below 0 (reversed entries).
 *
 * FC_SEED and FC_RUNS override the fixed seed and the number of runs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decideFlowRun } from "@/lib/domain/earning-flows";

const SEED = Number(process.env.FC_SEED ?? 20261126);
const RUNS = Number(process.env.FC_RUNS ?? 5000);

interface Flow {
  points: number | null;
  pointsPerUnit: number | null;
  capPerDay: number | null;
  capTotal: number | null;
  once: boolean;
}
interface Used {
  runs: number;
  total: number;
  today: number;
}

/** RUN_WRITE's decision, restated: the points earned and the cap named. */
function model(flow: Flow, factor: number | null, value: number, used: Used) {
  const base = flow.points != null ? flow.points : value * flow.pointsPerUnit!;
  let points = Math.floor(base * (factor ?? 1) + 1e-9);
  let capped: string | null = null;
  if (flow.once && used.runs > 0 && 0 < points) [points, capped] = [0, "once"];
  for (const [cap, got, name] of [
    [flow.capTotal, used.total, "cap_total"],
    [flow.capPerDay, used.today, "cap_per_day"],
  ] as const) {
    if (cap === null) continue;
    const room = cap - got;
    if (room < points) [points, capped] = [Math.max(0, room), name];
  }
  return { pointsEarned: points, capped };
}

const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 2 });
const flowArb: fc.Arbitrary<Flow> = fc
  .record({
    fixed: fc.boolean(),
    points: fc.integer({ min: 0, max: 500 }),
    pointsPerUnit: fc.constantFrom(0.01, 0.1, 0.25, 0.5, 1, 1.5, 2, 3.7, 10),
    capPerDay: nullable(fc.integer({ min: 0, max: 300 })),
    capTotal: nullable(fc.integer({ min: 0, max: 1500 })),
    once: fc.boolean(),
  })
  .map((f) => ({
    points: f.fixed ? f.points : null,
    pointsPerUnit: f.fixed ? null : f.pointsPerUnit,
    capPerDay: f.capPerDay,
    capTotal: f.capTotal,
    once: f.once,
  }));
const valueArb = fc.oneof(
  fc.integer({ min: 0, max: 2000 }),
  fc.integer({ min: 0, max: 200_000 }).map((c) => c / 100),
  fc.constantFrom(0, 19.99, 0.5, 1_000_000_000),
);
const usedArb: fc.Arbitrary<Used> = fc
  .record({ runs: fc.integer({ min: 0, max: 4 }), total: fc.integer({ min: -50, max: 2000 }), today: fc.nat(400) })
  .map((u) => (u.runs === 0 ? { runs: 0, total: 0, today: 0 } : { ...u, today: Math.min(u.today, u.total) }));
const factorArb = fc.constantFrom(null, 1, 1.1, 1.25, 1.5, 2, 0.8);

test("a flow decided by the campaign engine earns and caps exactly as the flows' own rule did", () => {
  const now = new Date("2026-11-26T12:00:00.000Z");
  let capped = 0;
  fc.assert(
    fc.property(flowArb, factorArb, valueArb, usedArb, (flow, factor, value, used) => {
      const expected = model(flow, factor, value, used);
      if (expected.capped) capped++;
      const got = decideFlowRun(
        { id: "00000000-0000-4000-8000-000000000001", key: "k", name: null, param: "amount", ...flow },
        { balance: 0, memberSince: now, tier: factor === null ? null : "T", factor, ...used },
        { amount: value },
        now,
      );
      assert.deepEqual({ pointsEarned: got.pointsEarned, capped: got.capped }, expected);
      // An applied run's effect carries the points the answer names.
      const applied = got.evaluation.applied[0];
      assert.equal(applied ? applied.points : 0, got.pointsEarned);
    }),
    { seed: SEED, numRuns: RUNS },
  );
  assert.ok(capped > RUNS / 10, `the generated cases reach the caps (${capped} of ${RUNS})`);
});

test("the property can fail: a model that rounds per-unit points before the tier factor disagrees", () => {
  const now = new Date("2026-11-26T12:00:00.000Z");
  const flow = { id: "f", key: "k", name: null, param: "amount", points: null, pointsPerUnit: 1 };
  const got = decideFlowRun(
    { ...flow, capPerDay: null, capTotal: null, once: false },
    { balance: 0, memberSince: now, tier: "Gold", factor: 2, runs: 0, total: 0, today: 0 },
    { amount: 2.5 },
    now,
  );
  // floor(2.5 × 2) = 5, where a campaign's `round: down` before the factor would give floor(2.5) × 2 = 4.
  assert.equal(got.pointsEarned, 5);
  assert.notEqual(got.pointsEarned, Math.floor(2.5) * 2);
});
