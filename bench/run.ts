/**
 * `npm run bench`: the production server ("ours" = whatever `npm start` runs, minus its migration step; see
 * bench/servers.ts startOurs) against references measured in the same run, on one PostgreSQL holding 100,000
 * customers: plain `next start` of the same build, the bare node:http + pg server running the same SQL
 * (bench/baseline-server.ts), and the framework floor (a constant-JSON route handler of this app). Prints a table,
 * writes bench/results/latest.json and bench/results/latest.md (bench/README.md's tables), each target PASS or FAIL.
 * A report, not a test: it exits 0 when a target is missed, non-zero only when the bench itself could not run.
 *
 * Rows (BENCH_ONLY=<comma-separated names> runs only those; the default runs all, about 15 minutes):
 *   floor      the framework floor (GET /healthz, a constant JSON; bare node:http beside it) and the 401 path
 *   get        GET /customers/{email}: ours, next start, bare; target ours ÷ bare ≥ 0.6
 *   increase   POST …/balance/increase with an Idempotency-Key: ours, next start, bare; target ≥ 0.8 (checks first
 *              that one keyed increase writes the same rows on ours and on bare and replays on both)
 *   latency    p50/p99 at constant rates (BENCH_RATES=100,300 req/s) for GET and keyed increase; targets at 300:
 *              GET p99 ≤ 25 ms, increase p99 ≤ 50 ms; the saturation throughput is the get/increase rows' req/s
 *   workers    1 vs 2 workers of the production server: the 401 path and GET
 *   memory     RSS of a fresh production server (default workers, summed over its processes) after 10k GET requests
 *              and after each of 3 rounds up to 100k; target: every round within 10% of the RSS after 10k
 *   ratelimit  GET with the rate-limit buckets in PostgreSQL vs the same build with them in memory
 *   batch100   POST /integrations/api, 100 items, 10 connections, ours vs bare
 *   extra      increase without a key (vs bare), hot spot on 10 customers, 100k coupon codes imported through the
 *              CLI then assigned, reward redemptions; each with its invariant checked afterwards
 *   batch1000  one 1,000-item batch upsert, median of 5, ours vs bare; target ≤ 200 ms
 *   evaluator  the campaign evaluator alone, in this process on one core: a 10-leaf tree; target ≥ 100,000/s
 *   segments   segment preview of a 3-condition filter (p99) and a full membership recompute (ours only)
 *   events     keyed POST …/events against 20 active campaigns of which 5 match, next to the keyed increase on the
 *              same server; target ≥ 0.6 of the increase
 *   simulate   POST …/campaigns/{id}/simulate over BENCH_SIMULATE_EVENTS (100,000) events of 30 days, 5 campaigns,
 *              beside reading the same events alone; target ≥ 100,000 replayed events per minute
 *   node24     GET and keyed increase on Node 24 vs this Node (when BENCH_NODE24 or
 *              /tmp/node24/node_modules/node/bin/node exists: `npm install --no-save --prefix /tmp/node24 node@24`)
 *
 * Environment (all optional):
 *   BENCH_DATABASE_URL      use this PostgreSQL server (a bench_* database is created on it and dropped);
 *                           default: a throwaway PostgreSQL 15 server in /tmp, deleted at the end
 *   BENCH_CUSTOMERS=100000  customers loaded before measuring, the first BENCH_HISTORY=5000 of them with an opening
 *                           balance (ledger history, so the statistics taken after loading are not of an empty ledger)
 *   BENCH_SECONDS=15        measured seconds per server and row (after BENCH_WARMUP_SECONDS=3 of warm-up), taken as
 *                           BENCH_ROUNDS=3 slices in which the servers alternate
 *   BENCH_CONNECTIONS=32    connections of the saturation rows
 *   BENCH_RATES=100,300     the latency row's rates (req/s), BENCH_RATE_SECONDS=10 each
 *   BENCH_MEMORY_REQUESTS=100000, BENCH_MEMORY_ROUNDS=3   the memory row (fewer per round when the server is too
 *                           slow to send them in BENCH_MEMORY_MAX_SECONDS=240; the table says so)
 *   BENCH_POOL_SIZE=10      DATABASE_POOL_SIZE for the app and the baseline's pg Pool
 *   BENCH_OURS_COMMAND      the production server's command (default: package.json's start script without
 *                           `npm run db:migrate &&`); it must listen on $PORT
 *   BENCH_WORKERS_VAR       the variable that sets its workers (default: both LOYALTY_WORKERS and WEB_CONCURRENCY)
 *   BENCH_NODE24            a Node 24 binary for the node24 row
 *   BENCH_EXTRA=0           skip the optional rows (memory, ratelimit, extra, node24)
 *   BENCH_DASHBOARD=1       also time the dashboard's reads on 1,000,000 customers (adds ~6 minutes)
 *   BENCH_DEADLINE_SECONDS=1320  the run aborts itself (and cleans up) after this long
 */
import os from "node:os";
import path from "node:path";
import pg from "pg";
import * as config from "./config";
import { Context } from "./context";
import { installGuards, log, register, teardown } from "./lifecycle";
import { benchDatabase } from "./postgres";
import { markdown, printTable, targets, writeResults } from "./report";
import { extraRows, batch1000Row } from "./rows/extra";
import { latencyRows } from "./rows/latency";
import { memoryRows } from "./rows/memory";
import { node24Rows } from "./rows/node24";
import { batch100Row, floorRows, getRow, increaseRow, rateLimitRow } from "./rows/throughput";
import { workerRows } from "./rows/workers";
import { correctionRows } from "./rows/corrections";
import { clockRows } from "./rows/clock";
import { birthdayRows } from "./rows/birthdays";
import { evaluatorRow, eventsRow } from "./rows/campaigns";
import { segmentsRow } from "./rows/segments";
import { simulateRow } from "./rows/simulate";
import { ensureBuild, productionCommand, startOurs } from "./servers";
import { createProgram, Workload } from "./setup";

const { ROOT, CUSTOMERS, SECONDS, WARMUP, ROUNDS, POOL, DASHBOARD, DEADLINE, runs } = config;
const env = process.env;

const FAMILIES: [config.RowId, (ctx: Context) => Promise<void>][] = [
  ["floor", floorRows],
  ["get", getRow],
  ["increase", increaseRow],
  ["latency", latencyRows],
  ["workers", workerRows],
  ["memory", memoryRows],
  ["ratelimit", rateLimitRow],
  ["batch100", batch100Row],
  ["extra", extraRows],
  ["batch1000", batch1000Row],
  ["node24", node24Rows],
  ["corrections", correctionRows],
  ["clock", clockRows],
  ["birthdays", birthdayRows],
  // events before evaluator: the evaluator's busy loop would leave the client's idle keep-alive sockets closed.
  ["events", eventsRow],
  ["simulate", simulateRow],
  ["evaluator", evaluatorRow],
  ["segments", segmentsRow],
];

async function main() {
  installGuards(DEADLINE);
  const started = Date.now();
  const loadAtStart = os.loadavg();
  const phases: Record<string, number> = {};
  const phase = (name: string, since: number) => (phases[name] = Math.round((Date.now() - since) / 100) / 10);

  // 1. PostgreSQL, schema, program ------------------------------------------------------------------------------
  let t = Date.now();
  const database = await benchDatabase();
  log(`database: ${database.describe}`);
  const dbEnv: NodeJS.ProcessEnv = {
    ...env,
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: POOL,
    NEXT_TELEMETRY_DISABLED: "1",
    // The scheduler and outbox worker would compete with the requests for the same two cores.
    LOYALTY_JOBS: "off",
  };
  delete dbEnv.PGLITE_DIR;
  delete dbEnv.NODE_OPTIONS;
  const sql = new pg.Pool({ connectionString: database.url, max: 2 });
  sql.on("error", () => {});
  const closeSql = register(
    "bench's pg pool",
    () => sql.end(),
    () => {},
  );
  const { rows: versionRows } = await sql.query("SHOW server_version");
  await ensureBuild(dbEnv);
  const program = await createProgram(dbEnv);
  phase("setup", t);
  log(`program ${program.programId} ready (setup ${phases.setup} s)`);

  // 2. Ours (one worker), then the customers through its own batch endpoint ------------------------------------
  t = Date.now();
  const ours = await startOurs({ workers: 1, env: dbEnv, label: "ours" });
  phase("appStart", t);
  log(`ours: \`${productionCommand()}\` with 1 worker on ${ours.baseUrl} (${phases.appStart} s)`);
  t = Date.now();
  const work = new Workload(program);
  await work.load(ours, sql);
  phase("load", t);
  log(`${CUSTOMERS.toLocaleString("en")} customers loaded in ${phases.load} s`);

  // 3. Rows -----------------------------------------------------------------------------------------------------
  const ctx = new Context(dbEnv, sql, work, ours);
  t = Date.now();
  const header = () => ({
    title: `npm run bench, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC: ours = \`${productionCommand()}\`, Node ${process.version}, PostgreSQL ${versionRows[0].server_version}, ${os.cpus().length} cores`,
    settings: `${CUSTOMERS.toLocaleString("en")} customers; ${SECONDS} s per server and row in ${ROUNDS} alternating slices after ${WARMUP} s warm-up; pool ${POOL}; load average at start ${loadAtStart.map((x) => x.toFixed(2)).join(" ")}${config.ONLY_ROWS ? `; rows: ${config.ONLY_ROWS.join(", ")}` : ""}`,
  });
  /** latest.json and latest.md: after every row family (so an aborted run keeps what it measured) and at the end. */
  const save = (complete: boolean, dashboard: unknown = null) =>
    writeResults(
      ROOT,
      {
        at: new Date().toISOString(),
        complete,
        machine: {
          cores: os.cpus().length,
          loadAverageAtStart: loadAtStart,
          loadAverageNow: os.loadavg(),
          node: process.version,
          postgres: versionRows[0].server_version,
        },
        ours: productionCommand(),
        settings: {
          only: config.ONLY_ROWS,
          customers: CUSTOMERS,
          seconds: SECONDS,
          rounds: ROUNDS,
          warmupSeconds: WARMUP,
          connections: config.CONNECTIONS,
          rates: config.RATES,
          rateSeconds: config.RATE_SECONDS,
          memoryRequests: config.MEMORY_REQUESTS,
          memoryRounds: config.MEMORY_ROUNDS,
          poolSize: Number(POOL),
          database: database.describe,
        },
        targets: config.TARGETS,
        pass: targets(ctx.results),
        ...ctx.results,
        dashboard,
        phasesSeconds: phases,
        totalSeconds: Math.round((Date.now() - started) / 1000),
      },
      markdown(header(), ctx.results) + (complete ? "" : "\n(partial: the run has not finished)\n"),
    );
  if (loadAtStart[0]! > 0.5)
    ctx.results.notes.push(
      `the machine was busy before the bench started (load average ${loadAtStart.map((x) => x.toFixed(2)).join(" ")}): absolute figures are low; the ratios are the figures to read`,
    );
  // A row family that cannot run (a server that does not start, an invariant check that throws) is reported and
  // the others still run; the bench then exits non-zero.
  const failed: string[] = [];
  for (const [id, run] of FAMILIES) {
    if (!runs(id)) continue;
    const since = Date.now();
    try {
      await run(ctx);
    } catch (err) {
      log(`row ${id} failed: ${(err as Error)?.stack ?? err}`);
      ctx.results.notes.push(`row ${id} could not run: ${(err as Error)?.message?.split("\n")[0] ?? err}`);
      failed.push(id);
    }
    phase(id, since);
    save(false);
  }
  phase("runs", t);

  // 4. Report ---------------------------------------------------------------------------------------------------
  console.log(printTable(header(), ctx.results));

  let dashboard = null;
  if (DASHBOARD) {
    await ctx.stopServers();
    dashboard = await runDashboard(database.url);
  }

  const totalSeconds = Math.round((Date.now() - started) / 1000);
  console.log(
    `\ntotal bench time ${totalSeconds} s (${Object.entries(phases)
      .map(([k, v]) => `${k} ${v} s`)
      .join(", ")})`,
  );
  const dir = save(true, dashboard);
  log(`results written to ${path.relative(ROOT, dir)}/latest.json and latest.md`);
  await closeSql();
  if (failed.length) {
    console.error(`\nbench: row(s) ${failed.join(", ")} could not run`);
    process.exitCode = 1;
  }
}

/** Opt-in (BENCH_DASHBOARD=1): the dashboard's reads at 1,000,000 customers, in-process (bench/dashboard.ts). */
async function runDashboard(url: string) {
  const { PrismaClient } = await import("@/lib/generated/prisma/client");
  const { openAdapter } = await import("@/lib/db/adapter");
  const { benchDashboard, searchTable } = await import("./dashboard");
  const big = Number(env.BENCH_DASHBOARD_CUSTOMERS ?? 1_000_000);
  log(`dashboard reads: loading ${big.toLocaleString("en")} customers with 5 ledger entries each`);
  const opened = await openAdapter({ kind: "postgres", url });
  const prisma = new PrismaClient({ adapter: opened.factory });
  try {
    const d = await benchDashboard(prisma, big, 5, log);
    if (!d) return null; // BENCH_DASHBOARD_LOAD_ONLY=1: loaded, nothing measured
    const f = (x: { p50: number; p99: number }) =>
      `p50 ${x.p50.toFixed(1).padStart(6)} ms   p99 ${x.p99.toFixed(1).padStart(6)} ms`;
    const v = (x: { p99: number }) => (x.p99 <= 50 ? "PASS" : "FAIL");
    console.log(
      `\nDashboard reads — ${d.customers.toLocaleString("en")} customers, ${d.entries.toLocaleString("en")} ledger entries (in-process)`,
    );
    console.log(`  customer list, newest first             ${f(d.listNewest)}`);
    console.log(`  customer page data (profile + history)  ${f(d.page)}   ${v(d.page)} (p99 ≤ 50 ms)`);
    console.log(`\n${searchTable(d)}`);
    return d;
  } finally {
    await prisma.$disconnect();
    await opened.close();
  }
}

main()
  .catch((err) => {
    console.error(`\nbench failed: ${(err as Error)?.stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await teardown();
    log("stopped everything it started");
    process.exit();
  });
