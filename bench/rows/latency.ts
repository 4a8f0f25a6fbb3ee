/**
 * Latency as integrators feel it: a constant arrival rate (an open loop, bench/load.ts atRate) for GET customer and POST
 * increase with an Idempotency-Key, p50/p99 of ours at each of BENCH_RATES, and of the bare server at the highest
 * rate as a reference for what the machine allowed. The saturation throughput is the get/increase rows' req/s.
 */
import { CONNECTIONS, RATE_SECONDS, RATES, TARGETS } from "../config";
import { clean, type Context } from "../context";
import { log } from "../lifecycle";
import { atRate } from "../load";

export async function latencyRows(ctx: Context) {
  const bare = await ctx.baseline();
  const top = Math.max(...RATES);
  const routes = [
    { name: "GET /customers/{email}", request: () => ctx.work.getCustomer(), p99: TARGETS.getP99Ms, family: "get" },
    {
      name: "POST …/balance/increase, Idempotency-Key",
      request: () => ctx.work.increase(true),
      p99: TARGETS.increaseP99Ms,
      family: "increase",
    },
  ] as const;
  for (const route of routes) {
    for (const rate of RATES) {
      log(`${route.name} at ${rate} req/s for ${RATE_SECONDS} s: ours`);
      const ours = await atRate(ctx.ours.baseUrl, route.request(), rate, RATE_SECONDS, CONNECTIONS);
      const refs = [];
      if (rate === top) {
        log(`${route.name} at ${rate} req/s for ${RATE_SECONDS} s: bare`);
        refs.push({
          label: "bare node:http + pg",
          figures: await atRate(bare.baseUrl, route.request(), rate, RATE_SECONDS, CONNECTIONS),
        });
      }
      // The targets are set at 300 req/s (or the highest rate run when 300 is not among BENCH_RATES).
      const judged = rate === 300 || (!RATES.includes(300) && rate === top);
      const saturation = ctx.row(
        route.family,
        route.family === "get" ? "GET /customers/{email}" : "POST …/balance/increase, Idempotency-Key",
      );
      ctx.add({
        family: "latency",
        name: `${route.name} at ${rate} req/s`,
        load: `${rate}/s`,
        ours,
        refs,
        target: judged ? `p99 ≤ ${route.p99} ms` : undefined,
        pass: judged ? ours.p99 <= route.p99 && clean(ours) : undefined,
        note: saturation
          ? `saturation ${Math.round(saturation.ours.rps)} req/s at ${saturation.load} connections`
          : undefined,
      });
    }
  }
}
