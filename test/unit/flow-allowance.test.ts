/**
 * What is left of a flow (lib/domain/earning-flows.ts `remainingRuns`, the JeriCommerce execute alias's
 * `remainingExecutions`) against two independent models on generated flows, tier factors and earlier uses: the
 * runs' own decision asked one run at a time (`decideFlowRun`, each run's points added to the uses), and the
 * arithmetic the answer had before it asked the decision (the caps' room ÷ the points of a run, rounded up; `once`:
 * at most one). The two models agree wherever a run earns something; a run that earns 0 points leaves 0 runs (the
 * former arithmetic called that unknowable: null, or 1 with `once`).
 *
 * FC_SEED and FC_RUNS override the fixed seed and the number of runs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decideFlowRun, remainingRuns, type FlowRunState } from "@/lib/domain/earning-flows";

const SEED = Number(process.env.FC_SEED ?? 20261126);
const RUNS = Number(process.env.FC_RUNS ?? 1000);
const now = new Date("2026-11-26T12:00:00.000Z");

interface Flow {
  points: number | null;
  pointsPerUnit: number | null;
  capPerDay: number | null;
  capTotal: number | null;
  once: boolean;
}
const full = (f: Flow) => ({ id: "00000000-0000-4000-8000-000000000001", key: "k", name: null, param: "amount", ...f });

/** The runs' decision asked one run at a time, until a run earns nothing (fixed points only). */
function oneByOne(flow: Flow, state: FlowRunState): number {
  let s = state;
  for (let runs = 0; runs < 100_000; runs++) {
    const { pointsEarned } = decideFlowRun(full(flow), s, {}, now);
    if (pointsEarned <= 0) return runs;
    s = { ...s, runs: s.runs + 1, total: s.total + pointsEarned, today: s.today + pointsEarned };
  }
  throw new Error("the flow never stops earning");
}

/** The answer's former arithmetic, restated. */
function former(flow: Flow, factor: number | null, used: { runs: number; total: number; today: number }) {
  if (!flow.once && flow.capTotal == null && flow.capPerDay == null) return null;
  const rooms = [
    ...(flow.capTotal != null ? [flow.capTotal - used.total] : []),
    ...(flow.capPerDay != null ? [flow.capPerDay - used.today] : []),
  ];
  const room = rooms.length ? Math.min(...rooms) : null;
  const perRun = flow.points != null ? Math.floor(flow.points * (factor ?? 1) + 1e-9) : null;
  let runs: number | null = null;
  if (room !== null) runs = room <= 0 ? 0 : perRun !== null && perRun > 0 ? Math.ceil(room / perRun) : null;
  if (flow.once) runs = used.runs > 0 ? 0 : Math.min(1, runs ?? 1);
  return runs;
}

const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 2 });
const flowArb: fc.Arbitrary<Flow> = fc
  .record({
    fixed: fc.boolean(),
    points: fc.integer({ min: 0, max: 300 }),
    pointsPerUnit: fc.constantFrom(0.1, 1, 2.5),
    capPerDay: nullable(fc.integer({ min: 0, max: 600 })),
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
const usedArb = fc
  .record({ runs: fc.integer({ min: 0, max: 4 }), total: fc.integer({ min: -50, max: 600 }), today: fc.nat(200) })
  .map((u) => (u.runs === 0 ? { runs: 0, total: 0, today: 0 } : { ...u, today: Math.min(u.today, u.total) }));
const factorArb = fc.constantFrom(null, 1, 1.1, 1.25, 1.5, 2, 0.8, 0.5);

test("the runs left are the runs the decision would award one after the other, and the former arithmetic's", () => {
  let counted = 0;
  fc.assert(
    fc.property(flowArb, factorArb, usedArb, (flow, factor, used) => {
      const state = { balance: 0, memberSince: now, tier: factor === null ? null : "T", factor, ...used };
      const got = remainingRuns(full(flow), state, now);
      const limited = flow.once || flow.capTotal != null || flow.capPerDay != null;
      if (!limited) return assert.equal(got, null);
      if (flow.points == null) return assert.equal(got, former(flow, factor, used));
      const expected = oneByOne(flow, state);
      if (expected > 1) counted++;
      assert.equal(got, expected);
      const perRun = Math.floor(flow.points * (factor ?? 1) + 1e-9);
      if (perRun > 0) assert.equal(got, former(flow, factor, used));
    }),
    { seed: SEED, numRuns: RUNS },
  );
  assert.ok(counted > RUNS / 20, `the generated cases leave several runs (${counted} of ${RUNS})`);
});

test("daily: 10 points, 25 a day: 3 runs left (10, 10, then the 5 left), 1 after two, none after the third", () => {
  const flow = { points: 10, pointsPerUnit: null, capPerDay: 25, capTotal: null, once: false };
  const state = (today: number, runs: number) => ({
    balance: 0,
    memberSince: now,
    tier: null,
    factor: null,
    runs,
    total: today,
    today,
  });
  assert.equal(remainingRuns(full(flow), state(0, 0), now), 3);
  assert.equal(remainingRuns(full(flow), state(20, 2), now), 1);
  assert.equal(remainingRuns(full(flow), state(25, 3), now), 0);
});
