/**
 * Load: autocannon slices, merged into figures; several servers measured in alternating slices so that noise on a
 * shared machine hits all of them alike; fixed-rate runs for latency.
 */
import autocannon, { type RawResult, type Request as LoadRequest } from "autocannon";
import { log } from "./lifecycle";
import { ROUNDS } from "./config";

export type { LoadRequest };

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  non2xx: number;
}

export const slice = (
  url: string,
  request: LoadRequest,
  connections: number,
  seconds: number,
  extra: { overallRate?: number; amount?: number } = {},
) =>
  autocannon({
    url,
    connections,
    duration: seconds,
    requests: [request],
    skipAggregateResult: true,
    ...extra,
  });

/** Merges slices: req/s over their total time, latency percentiles from their merged histograms. */
export function summarize(url: string, connections: number, raws: RawResult[]): Figures {
  const merged = autocannon.aggregateResult(raws, { url, connections });
  const requests = raws.reduce((n, r) => n + r.totalCompletedRequests, 0);
  const seconds = raws.reduce((n, r) => n + r.duration, 0);
  return {
    rps: requests / seconds,
    p50: merged.latency.p50,
    p99: merged.latency.p99,
    requests,
    errors: merged.errors + merged.timeouts,
    non2xx: merged.non2xx,
  };
}

/** One server alone: a warm-up, then one measured slice. */
export async function measure(
  url: string,
  request: LoadRequest,
  connections: number,
  seconds: number,
  warmup: number,
): Promise<Figures> {
  if (warmup > 0) await slice(url, request, connections, warmup);
  return summarize(url, connections, [await slice(url, request, connections, seconds)]);
}

/**
 * Several servers on the same request: a warm-up each, then ROUNDS slices of seconds/ROUNDS each, the order rotating
 * every round, so that a burst of load from elsewhere hits all of them rather than one. Figures in the given order.
 */
export async function alternate(
  label: string,
  servers: { name: string; baseUrl: string }[],
  request: LoadRequest,
  connections: number,
  seconds: number,
  warmup: number,
): Promise<Figures[]> {
  log(
    `${label}, ${connections} connections: ${servers.map((s) => s.name).join(" / ")}: ${warmup} s warm-up each, then ${ROUNDS} × ${+(seconds / ROUNDS).toFixed(1)} s each, alternating`,
  );
  for (const s of servers) if (warmup > 0) await slice(s.baseUrl, request, connections, warmup);
  const raws: RawResult[][] = servers.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < servers.length; k++) {
      const i = (round + k) % servers.length;
      raws[i]!.push(await slice(servers[i]!.baseUrl, request, connections, seconds / ROUNDS));
    }
  }
  const figures = servers.map((s, i) => summarize(s.baseUrl, connections, raws[i]!));
  log(
    `  ${servers.map((s, i) => `${s.name} ${Math.round(figures[i]!.rps)} req/s p99 ${figures[i]!.p99} ms`).join("; ")}`,
  );
  return figures;
}

/**
 * Latency at a constant arrival rate (autocannon's overallRate spread over the connections), after a short warm-up at
 * the same rate.
 */
export async function atRate(url: string, request: LoadRequest, rate: number, seconds: number, connections: number) {
  const conns = Math.min(connections, rate);
  await slice(url, request, conns, 2, { overallRate: rate });
  return summarize(url, conns, [await slice(url, request, conns, seconds, { overallRate: rate })]);
}

/** Exactly `amount` requests at `connections` (for the memory rounds). */
export async function send(url: string, request: LoadRequest, amount: number, connections: number) {
  return summarize(url, connections, [await slice(url, request, connections, 0, { amount })]);
}

/** a ÷ b in req/s; undefined when b completed nothing (e.g. a server still starting during a very short slice). */
export const ratioOf = (a: Figures, b: Figures) => (b.requests > 0 ? a.rps / b.rps : undefined);
