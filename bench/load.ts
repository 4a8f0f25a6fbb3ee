/**
 * Load: autocannon slices, merged into figures; several servers measured in alternating slices so that noise on a
 * shared machine hits all of them alike; fixed-rate (open-loop) runs for latency.
 */
import http from "node:http";
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
 * Several servers on the same request (or, where a server names its own `request`, several requests, on one server or
 * more): a warm-up each, then ROUNDS slices of seconds/ROUNDS each, the order rotating every round, so that a burst of
 * load from elsewhere, or a database that changes as the run writes (autovacuum, a checkpoint, tables growing), hits
 * all of them rather than the one measured last. Figures in the given order.
 */
export async function alternate(
  label: string,
  servers: { name: string; baseUrl: string; request?: LoadRequest }[],
  request: LoadRequest | null,
  connections: number,
  seconds: number,
  warmup: number,
): Promise<Figures[]> {
  log(
    `${label}, ${connections} connections: ${servers.map((s) => s.name).join(" / ")}: ${warmup} s warm-up each, then ${ROUNDS} × ${+(seconds / ROUNDS).toFixed(1)} s each, alternating`,
  );
  const requestOf = (s: (typeof servers)[number]) => {
    const r = s.request ?? request;
    if (!r) throw new Error(`alternate: no request for ${s.name}`);
    return r;
  };
  for (const s of servers) if (warmup > 0) await slice(s.baseUrl, requestOf(s), connections, warmup);
  const raws: RawResult[][] = servers.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < servers.length; k++) {
      const i = (round + k) % servers.length;
      raws[i]!.push(await slice(servers[i]!.baseUrl, requestOf(servers[i]!), connections, seconds / ROUNDS));
    }
  }
  const figures = servers.map((s, i) => summarize(s.baseUrl, connections, raws[i]!));
  // Each slice's req/s too, in the order measured: a reader sees how much of a ratio is noise.
  const perSlice = (i: number) => raws[i]!.map((r) => Math.round(r.totalCompletedRequests / r.duration)).join("/");
  log(
    `  ${servers.map((s, i) => `${s.name} ${Math.round(figures[i]!.rps)} req/s (slices ${perSlice(i)}) p99 ${figures[i]!.p99} ms`).join("; ")}`,
  );
  return figures;
}

/**
 * Latency at a constant arrival rate: request i is due at start + i/rate, whatever happened to the ones before
 * (an open loop), and its latency runs from when it was due to the end of its answer, so a server that falls behind
 * is charged for the wait too (no coordinated omission). Requests go out on up to `connections` keep-alive
 * connections; one that finds them all busy waits for the next free one, its wait counted. A short warm-up at the
 * same rate comes first.
 *
 * Not autocannon's overallRate: that one lets each connection send its share of a second's requests back to back
 * as the second begins and then pause, so its percentiles time the draining of a burst of `rate` requests, not the
 * latency at a steady rate (the bare server showed p99 33 ms at 300 req/s that way).
 */
export async function atRate(url: string, request: LoadRequest, rate: number, seconds: number, connections: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.min(connections, rate) });
  try {
    await openLoop(url, request, rate, Math.min(2, seconds), agent);
    return await openLoop(url, request, rate, seconds, agent);
  } finally {
    agent.destroy();
  }
}

async function openLoop(url: string, request: LoadRequest, rate: number, seconds: number, agent: http.Agent) {
  const base = new URL(url);
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const inFlight: Promise<void>[] = [];
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const r = request.setupRequest ? request.setupRequest({ ...request }, {}) : request;
      const body = typeof r.body === "string" ? r.body : undefined;
      const req = http.request(
        {
          host: base.hostname,
          port: base.port,
          method: r.method ?? "GET",
          path: r.path ?? "/",
          agent,
          headers: {
            ...(r.headers as Record<string, string>),
            ...(body ? { "content-length": Buffer.byteLength(body) } : {}),
          },
        },
        (res) => {
          res.resume();
          res.once("end", () => {
            if ((res.statusCode ?? 0) >= 300) non2xx++;
            latencies.push(performance.now() - due);
            resolve();
          });
        },
      );
      req.setTimeout(10_000, () => req.destroy(new Error("timeout")));
      req.once("error", () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  const start = performance.now();
  for (let i = 0; i < total;) {
    const now = performance.now();
    // Every request due by now goes out; the timer's slack (about a millisecond) is charged to the request.
    for (; i < total && start + (i * 1000) / rate <= now; i++) inFlight.push(send(start + (i * 1000) / rate));
    if (i < total) await new Promise((r) => setTimeout(r, Math.max(0, start + (i * 1000) / rate - performance.now())));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies.length
      ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10
      : 0;
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), requests: latencies.length, errors, non2xx };
}

/** Exactly `amount` requests at `connections` (for the memory rounds). */
export async function send(url: string, request: LoadRequest, amount: number, connections: number) {
  return summarize(url, connections, [await slice(url, request, connections, 0, { amount })]);
}

/** a ÷ b in req/s; undefined when b completed nothing (e.g. a server still starting during a very short slice). */
export const ratioOf = (a: Figures, b: Figures) => (b.requests > 0 ? a.rps / b.rps : undefined);
