/**
 * Campaigns (issue 23): the evaluator alone, in the bench's process on one core (bench/evaluator.ts), beside the same
 * decision written by hand. Target: ≥ 100,000 evaluations/s of a 10-leaf tree.
 */
import type { Context } from "../context";
import { log } from "../lifecycle";
import { EVALUATOR_TARGET, measureEvaluator } from "../evaluator";

const figures = (rps: number) => ({ rps, p50: 0, p99: 0, requests: Math.round(rps * 3), errors: 0, non2xx: 0 });

export async function evaluatorRow(ctx: Context) {
  const m = measureEvaluator(3000);
  log(`evaluator: ${Math.round(m.evaluator)} evaluations/s, by hand ${Math.round(m.hand)}/s`);
  ctx.add({
    family: "evaluator",
    name: "campaign evaluator, 10-leaf tree (evaluations/s, one core)",
    load: "1 core",
    ours: figures(m.evaluator),
    refs: [{ label: "the same decision by hand", figures: figures(m.hand) }],
    ratio: m.ratio,
    ratioOf: "by hand",
    target: `≥ ${EVALUATOR_TARGET.toLocaleString("en")} evaluations/s`,
    pass: m.pass,
  });
}
