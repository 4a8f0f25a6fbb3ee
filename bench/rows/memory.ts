/**
 * Memory: a fresh production server with its default number of workers takes BENCH_MEMORY_REQUESTS GET customer
 * requests; its RSS (VmRSS summed over the server's processes: a cluster's primary and workers) is read after the
 * first 10,000 and then after each of BENCH_MEMORY_ROUNDS equal rounds that make up the rest. No growth: every
 * round ends within 10% of the RSS after 10k.
 *
 * Measured on the bench's Node and, when a Node 24 binary is found (as for the node24 row), again on Node 24: the
 * runtime the image runs. They differ: on Node 20 about 1 KB per request survives two scavenges and is promoted (it
 * is garbage, dropped by V8's first full collection at 130-160k requests), on Node 24 almost nothing is.
 */
import { CONNECTIONS, MEMORY_MAX_SECONDS, MEMORY_REQUESTS, MEMORY_ROUNDS, TARGETS, node24 } from "../config";
import type { Context, MemoryResult } from "../context";
import { log } from "../lifecycle";
import { send } from "../load";
import { serverRss, startOurs } from "../servers";

export async function memoryRows(ctx: Context) {
  ctx.results.memory.push(await measure(ctx, process.execPath, process.version));
  const on24 = node24();
  if (on24 && on24.version !== process.version) ctx.results.memory.push(await measure(ctx, on24.binary, on24.version));
}

async function measure(ctx: Context, node: string, version: string): Promise<MemoryResult> {
  // The production default: no worker setting at all.
  const server = await startOurs({ env: ctx.dbEnv, node, label: `ours on Node ${version}, default workers` });
  try {
    const first = Math.min(10_000, Math.round(MEMORY_REQUESTS / 10));
    let perRound = Math.max(1, Math.round((MEMORY_REQUESTS - first) / MEMORY_ROUNDS));
    log(
      `memory, Node ${version}: ${first.toLocaleString("en")} GET requests, then ${MEMORY_ROUNDS} × ${perRound.toLocaleString("en")}`,
    );
    const t0 = performance.now();
    await send(server.baseUrl, ctx.work.getCustomer(), first, CONNECTIONS);
    // On a machine too slow (or too busy) for the whole count in BENCH_MEMORY_MAX_SECONDS, fewer requests per round.
    const rate = first / ((performance.now() - t0) / 1000);
    if ((perRound * MEMORY_ROUNDS) / rate > MEMORY_MAX_SECONDS) {
      perRound = Math.max(1, Math.floor((rate * MEMORY_MAX_SECONDS) / MEMORY_ROUNDS));
      const note = `memory, Node ${version}: at ${Math.round(rate)} req/s the rounds were cut to ${perRound.toLocaleString("en")} requests each (BENCH_MEMORY_MAX_SECONDS=${MEMORY_MAX_SECONDS})`;
      log(note);
      ctx.results.notes.push(note);
    }
    const ref = serverRss(server);
    log(`  RSS after ${first.toLocaleString("en")}: ${ref.mib} MiB (${ref.processes} processes)`);
    const rounds = [];
    let total = first;
    for (let round = 0; round < MEMORY_ROUNDS; round++) {
      const f = await send(server.baseUrl, ctx.work.getCustomer(), perRound, CONNECTIONS);
      if (f.errors || f.non2xx) log(`  round ${round + 1}: ${f.errors} errors, ${f.non2xx} non-2xx`);
      total += perRound;
      const now = serverRss(server);
      rounds.push({ requests: total, rssMiB: now.mib, processes: now.processes, growth: now.mib / ref.mib - 1 });
      log(`  RSS after ${total.toLocaleString("en")}: ${now.mib} MiB (${(100 * (now.mib / ref.mib - 1)).toFixed(1)}%)`);
    }
    return {
      node: version,
      server: `${server.name}: ${ref.processes} process${ref.processes === 1 ? "" : "es"}`,
      requestsPerRound: perRound,
      firstRequests: first,
      rssAfterFirstMiB: ref.mib,
      rounds,
      target: `every round within ${TARGETS.rssGrowth * 100}% of the RSS after ${first.toLocaleString("en")}`,
      pass: rounds.every((r) => r.growth <= TARGETS.rssGrowth),
    };
  } finally {
    await server.child.stop();
  }
}
