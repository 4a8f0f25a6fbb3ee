/**
 * Where ours spends a request: `node --no-warnings --import tsx bench/profile.ts [get|increase|get401|events|flows|statement|...]` (comma-
 * separated; default `get,increase`). Not a bench row: a measuring tool for the one who tunes the hot paths.
 *
 * For each request kind it starts a fresh production server (one worker) under `node --cpu-prof`, sends the kind's
 * requests at PROFILE_CONNECTIONS connections for PROFILE_SECONDS after a warm-up, then prints:
 *   - req/s and p50/p99, and the server's CPU time (user + system, from /proc) per request: on a shared machine
 *     the steadiest of these figures, since it does not depend on how much of the cores the server got;
 *   - the database's work per request, from pg_stat_statements: each statement's calls per request and mean time,
 *     and the commits per request (pg_stat_database), i.e. the round trips a request costs;
 *   - the V8 CPU profile of the measured seconds only, as the top functions by self time and the same grouped by
 *     where the code lives (a package, Node's internals, the app's bundle).
 *
 * The kind `statement` sends no HTTP at all: it runs the keyed increase's one statement (lib/domain/ledger.ts
 * changeSql) and the bare server's (./baseline-sql.ts) straight on a pg pool of PROFILE_STATEMENT_CONNECTIONS
 * (default 10, the app's pool), in alternating slices, and prints statements per second and PostgreSQL's CPU per statement (its
 * processes' time from /proc: meaningful for the throwaway server on this machine). What the database costs apart
 * from any server in front of it.
 *
 * Environment: BENCH_CUSTOMERS (customers loaded; default 100,000 as in the bench), PROFILE_SECONDS=10,
 * PROFILE_WARMUP_SECONDS=3, PROFILE_CONNECTIONS=32, PROFILE_TOP=25, PROFILE_ENV="NAME=value …" (added to the server's
 * environment, e.g. `RATE_LIMIT_STORE=memory`), PROFILE_BARE=1 (the same load on the bare server after ours, for
 * comparison), PROFILE_AGAINST=<dir> (A/B: instead of profiling, the build in <dir> — a copy of .next, dist and
 * package.json with node_modules linked — against this one, PROFILE_ROUNDS=4 alternating slices of PROFILE_SECONDS
 * each, req/s and CPU per request of both; PROFILE_AGAINST_ENV="NAME=value …" goes to that server only, so
 * PROFILE_AGAINST=. compares a setting on the same build; several builds: PROFILE_AGAINST=<dir>,<dir>, each started
 * without migrating: the database is this build's), PROFILE_AB_CPU=1 (in an A/B, a CPU profile of each build and
 * their µs of self time per request side by side, by source file and by function, the app's bundle mapped back to
 * its files through the build's source maps), PROFILE_BUILD=<dir> (profile that build instead of this one),
 * PROFILE_NODE=<binary> (the servers' Node, e.g. /tmp/node24/node_modules/node/bin/node), PROFILE_CPU=0 (no CPU
 * profile), BENCH_DATABASE_URL (a server of yours
 * with pg_stat_statements loaded; by default a throwaway PostgreSQL 15 with it). Profiles stay in PROFILE_DIR
 * (default /tmp/loyalty-profile) for Chrome DevTools.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { CUSTOMERS } from "./config";
import { installGuards, log, register, teardown } from "./lifecycle";
import { slice, summarize, type LoadRequest } from "./load";
import {
  ensureBuild,
  processCpuSeconds,
  productionCommand,
  serverCpuSeconds,
  startBaseline,
  startOurs,
  type Server,
} from "./servers";
import { createProgram, Workload } from "./setup";
import { increaseSql } from "./baseline-sql";
import { changeArgs, changeSql } from "@/lib/api/one-statement";
import { eventsWorkload } from "./rows/campaigns";
import { outcomeSlot } from "@/lib/api/idempotency";

const env = process.env;
const SECONDS = Number(env.PROFILE_SECONDS ?? 10);
const WARMUP = Number(env.PROFILE_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(env.PROFILE_CONNECTIONS ?? 32);
const TOP = Number(env.PROFILE_TOP ?? 25);
const CPU = env.PROFILE_CPU !== "0";
const BARE = env.PROFILE_BARE === "1";
/** PROFILE_AGAINST=<dir>[,<dir>…]: the builds measured against this one, in alternating slices. */
const AGAINST = (env.PROFILE_AGAINST ?? "")
  .split(",")
  .map((d) => d.trim())
  .filter(Boolean);
/** PROFILE_BUILD=<dir>: profile that build instead of this one (a copy as for PROFILE_AGAINST). */
const BUILD = env.PROFILE_BUILD?.trim() || null;
/** PROFILE_NODE=<binary>: the Node the servers run on (e.g. Node 24); the bench's own by default. */
const NODE = env.PROFILE_NODE?.trim() || undefined;
const ROUNDS = Number(env.PROFILE_ROUNDS ?? 4);
/** PROFILE_AB_CPU=1: in an A/B (PROFILE_AGAINST), a CPU profile of each build, compared function by function. */
const AB_CPU = env.PROFILE_AB_CPU === "1";
const METRICS_TOKEN = "profile-metrics-token-0123456789";

/** The one-statement writes the server handed over to their locked path (its /metrics), by why. */
async function handovers(server: Server): Promise<string> {
  const res = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await res.text();
  const lines = text.split("\n").filter((l) => l.startsWith("loyalty_statement_handovers_total{"));
  return lines.length ? lines.map((l) => l.replace("loyalty_statement_handovers_total", "")).join(", ") : "none";
}
const DIR = env.PROFILE_DIR ?? "/tmp/loyalty-profile";
const envPairs = (text = "") =>
  Object.fromEntries(
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
const EXTRA_ENV = envPairs(env.PROFILE_ENV);
/** PROFILE_AGAINST_ENV: added to the environment of the PROFILE_AGAINST server only (A/B of a setting). */
const AGAINST_ENV = envPairs(env.PROFILE_AGAINST_ENV);
const KINDS = (process.argv[2] ?? "get,increase").split(",").map((s) => s.trim());
/** `bench/profile.ts <file>.cpuprofile [seconds]`: only the summary of a profile taken before. */
const SUMMARISE = process.argv[2]?.endsWith(".cpuprofile") ? process.argv[2] : null;

/** The `events` row's set-up (bench/rows/campaigns.ts), made once per run by the first kind that needs it. */
let campaignsSetUp: ReturnType<typeof eventsWorkload> | undefined;
const campaignLoad = (w: Workload, baseUrl: string, sql: pg.Pool) =>
  (campaignsSetUp ??= eventsWorkload(baseUrl, w, sql, Number(env.BENCH_EVENTS_BUDGETED ?? 2)));

const requests: Record<string, (work: Workload, baseUrl: string, sql: pg.Pool) => LoadRequest | Promise<LoadRequest>> =
  {
    get: (w) => w.getCustomer(),
    increase: (w) => w.increase(true),
    increaseUnkeyed: (w) => w.increase(false),
    get401: (w) => w.unauthorized(),
    // The `events` row's requests: a keyed event against 20 active campaigns (5 match, BENCH_EVENTS_BUDGETED=2 of them
    // with a budget), a keyed earning-flow run.
    events: async (w, url, sql) => (await campaignLoad(w, url, sql)).events,
    flows: async (w, url, sql) => (await campaignLoad(w, url, sql)).flows,
  };

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number } }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a function's code lives: a package, Node's internals, the app's bundle, or V8's own buckets. */
function area(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  if (url.startsWith("node:"))
    return url
      .replace(/^node:(internal\/)?/, "node:")
      .split("/")
      .slice(0, 2)
      .join("/");
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) {
    const inner = /node_modules\/next\/dist\/compiled\/([^/]+)/.exec(url);
    return inner ? `next/compiled/${inner[1]}` : pkg[1]!;
  }
  if (url.includes("/.next/server/chunks/")) return "app bundle (.next/server/chunks)";
  if (url.includes("/.next/server/app/")) return "app bundle (route modules)";
  if (url.includes("/dist/")) return "dist (front)";
  return path.basename(url);
}

/**
 * Self time per function and per area over the last `seconds` of the profile (the measured load and the moments
 * after it until the server exited), idle time left out.
 */
function summariseProfile(file: string, seconds: number, requests?: number) {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const from = profile.endTime - (seconds + 0.3) * 1e6;
  const selfFn = new Map<string, number>();
  const selfArea = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < from) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(profile.samples[i]!)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") continue;
    const fn = `${functionName || "(anonymous)"} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ""}`.trim();
    const a = area(url, functionName);
    selfFn.set(fn, (selfFn.get(fn) ?? 0) + dt);
    selfArea.set(a, (selfArea.get(a) ?? 0) + dt);
    total += dt;
  }
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(
        ([k, v]) =>
          `  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v / 1000).toFixed(0).padStart(6)} ms${requests ? `  ${(v / requests).toFixed(2).padStart(7)} µs/request` : ""}  ${k}`,
      )
      .join("\n");
  return { total, functions: top(selfFn), areas: top(selfArea) };
}

const sourceMaps = new Map<string, SourceMap | null>();

/**
 * Where a frame of a built chunk (.next/server/…) came from, through the chunk's source map: the original file (e.g.
 * `lib/api/edge.ts`) and the function's name there when the map names it, else its original line. Null elsewhere.
 */
function originalFrame(url: string, line: number, column: number): { source: string; at: string } | null {
  if (!url.includes("/.next/server/")) return null;
  const file = url.startsWith("file:") ? fileURLToPath(url) : url;
  if (!sourceMaps.has(file)) {
    try {
      sourceMaps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8"))));
    } catch {
      sourceMaps.set(file, null);
    }
  }
  const entry = sourceMaps.get(file)?.findEntry(line, column) as
    { originalSource?: string; originalLine?: number; name?: string } | undefined;
  if (!entry?.originalSource) return null;
  const source = entry.originalSource
    .replace(/^(\.\.\/)+/, "")
    .replace(/^turbopack:\/\/\/\[turbopack\]/, "[turbopack]");
  return { source, at: entry.name ?? `:${(entry.originalLine ?? 0) + 1}` };
}

/**
 * A function's name and file, without what differs between two builds of the same code (chunk hash, line): for the
 * app's bundle, its original file and name through the source maps.
 */
function frameKeys(functionName: string, url: string, line: number, column: number): { fn: string; file: string } {
  const original = originalFrame(url, line, column);
  if (original)
    return {
      fn: `${original.at.startsWith(":") ? functionName || "(anonymous)" : original.at} ${original.source}`,
      file: original.source,
    };
  const file = url ? path.basename(url).replace(/_[0-9a-z-]{10,16}\._\.js$/, ".js") : functionName;
  return { fn: `${functionName || "(anonymous)"} ${url ? file : ""}`.trim(), file: area(url, functionName) };
}

/** Self time per function over the last `seconds` of a profile (idle left out), in µs. */
function selfTimes(file: string, seconds: number): { byFunction: Map<string, number>; byFile: Map<string, number> } {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const keys = new Map(
    profile.nodes.map((n) => {
      const { functionName, url, lineNumber, columnNumber } = n.callFrame;
      return [n.id, functionName === "(idle)" ? null : frameKeys(functionName, url, lineNumber, columnNumber ?? 0)];
    }),
  );
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const from = profile.endTime - seconds * 1e6;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < from) continue;
    const key = keys.get(profile.samples[i]!);
    if (!key) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    byFunction.set(key.fn, (byFunction.get(key.fn) ?? 0) + dt);
    byFile.set(key.file, (byFile.get(key.file) ?? 0) + dt);
  }
  return { byFunction, byFile };
}

/**
 * The A/B's builds stopped, their CPU profiles from the first warm-up on divided by the requests each served: µs of
 * self time per request for each function, the functions whose cost differs most between the builds first. Both
 * builds ran the same load in alternating slices, so a difference is the code's, not the machine's.
 */
async function compareProfiles(builds: Server[], served: number[], loadedFrom: number[]) {
  const tables: { byFunction: Map<string, number>; byFile: Map<string, number> }[] = [];
  for (const [i, server] of builds.entries()) {
    const seconds = (Date.now() - loadedFrom[i]!) / 1000;
    await server.child.stop();
    const dir = path.join(DIR, `ab-${i}`);
    let file: string | undefined;
    for (let t = 0; t < 100 && !file; t++) {
      file = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith(".cpuprofile")) : undefined;
      if (!file) await new Promise((r) => setTimeout(r, 200));
    }
    if (!file) throw new Error(`no CPU profile in ${dir}`);
    await new Promise((r) => setTimeout(r, 500)); // written as the process exits
    const self = selfTimes(path.join(dir, file), seconds);
    const perRequest = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [k, v / served[i]!]));
    tables.push({ byFunction: perRequest(self.byFunction), byFile: perRequest(self.byFile) });
  }
  const cell = (x: number) => x.toFixed(2).padStart(8);
  const spread = (v: number[]) => Math.max(...v) - Math.min(...v);
  const total = tables.map((t) => [...t.byFile.values()].reduce((a, b) => a + b, 0));
  console.log(`\n== CPU profiles, µs of self time per request (${builds.map((b) => b.name).join(" | ")}):`);
  console.log(`  ${total.map(cell).join(" ")}  (all; requests ${served.slice(0, builds.length).join(", ")})`);
  for (const by of ["byFile", "byFunction"] as const) {
    console.log(`by ${by === "byFile" ? "source file or area" : "function"}, largest difference first:`);
    const keys = new Set(tables.flatMap((t) => [...t[by].keys()]));
    const rows = [...keys].map((k) => ({ k, v: tables.map((t) => t[by].get(k) ?? 0) }));
    for (const r of rows.sort((a, b) => spread(b.v) - spread(a.v)).slice(0, TOP))
      console.log(`  ${r.v.map(cell).join(" ")}  ${r.k}`);
  }
}

/** The statements run since the last reset: calls per request (of `n`) and mean time in the database server. */
async function printStatements(sql: pg.Pool, n: number) {
  const { rows } = await sql.query(
    `SELECT calls::bigint AS calls, mean_exec_time AS mean, mean_plan_time AS plan, total_exec_time AS total, rows::bigint AS rows,
            regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS query
     FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND query NOT LIKE '%pg_stat%' AND calls >= $1 ORDER BY total_exec_time DESC LIMIT 12`,
    [Math.max(1, Math.floor(n / 50))],
  );
  console.log("statements (calls per request, mean ms in the server: executing, planning — 0 unless track_planning):");
  for (const r of rows)
    console.log(
      `  ${(Number(r.calls) / n).toFixed(2).padStart(5)}  ${Number(r.mean).toFixed(3).padStart(7)} ms  ${Number(r.plan).toFixed(3).padStart(6)} ms  ${r.query}`,
    );
}

/**
 * PostgreSQL's CPU seconds so far: every process named postgres on this machine, or with `port` only the server
 * listening on it (its postmaster, found by its `-p <port>` argument, and that postmaster's children: the backends
 * alive now), so that the other PostgreSQL servers of a shared machine do not count.
 */
function postgresCpuSeconds(port?: number): number {
  const postgres: { pid: string; ppid: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      postgres.push({ pid: entry, ppid: stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]! });
    } catch {
      // the process ended while we read
    }
  }
  let chosen = postgres;
  if (port !== undefined) {
    const masters = new Set(
      postgres
        .filter((p) => {
          try {
            const args = readFileSync(`/proc/${p.pid}/cmdline`, "utf8").split("\0").join(" ");
            return new RegExp(`-p\\s*${port}\\b`).test(args);
          } catch {
            return false;
          }
        })
        .map((p) => p.pid),
    );
    chosen = postgres.filter((p) => masters.has(p.pid) || masters.has(p.ppid));
  }
  return chosen.reduce((total, p) => total + processCpuSeconds(p.pid), 0);
}

/** The keyed increase as one statement, ours against the bare server's, on a pool: no HTTP (see the header). */
async function statementsAlone(url: string, work: Workload) {
  const connections = Number(env.PROFILE_STATEMENT_CONNECTIONS ?? 10);
  const pool = new pg.Pool({ connectionString: url, max: connections });
  pool.on("error", () => {});
  try {
    const programId = work.program.programId;
    const { rows: keys } = await pool.query(`SELECT id FROM "ApiKey" WHERE "programId" = $1::uuid LIMIT 1`, [
      programId,
    ]);
    const apiKeyId = String(keys[0].id);
    const { rows: columns } = await pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE column_name = 'programId' AND table_schema = current_schema()`,
    );
    const bareSql = increaseSql(new Set(columns.map((r) => r.table_name)));
    const email = () => work.emails[Math.floor(Math.random() * work.emails.length)]!;
    const body = { raw: '{"points":5}', value: { points: 5 } };
    const kinds = [
      {
        name: "ours (changeSql, keyed)",
        text: changeSql({ type: "earn", points: 5 }),
        args: () => {
          const key = randomUUID();
          const slot = outcomeSlot({ programId, scopeId: apiKeyId, key, method: "POST", path: "/bench", body });
          const change = { programId, customerId: null, email: email(), points: 5, type: "earn" as const };
          return changeArgs({ ...change, source: "api", actor: `api_key:${apiKeyId}`, idempotencyKey: key }, slot);
        },
      },
      {
        name: "bare (bench/baseline-sql.ts, keyed)",
        text: bareSql,
        args: () => [programId, email(), 5, `api_key:${apiKeyId}`, randomUUID(), apiKeyId, "0".repeat(64)],
      },
    ];
    const totals = kinds.map(() => ({ n: 0, seconds: 0, cpu: 0 }));
    const run = async (k: number, seconds: number) => {
      const { name, text, args } = kinds[k]!;
      const until = performance.now() + seconds * 1000;
      const started = performance.now();
      const cpu = postgresCpuSeconds();
      let n = 0;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < until) {
            await pool.query({ name: name.split(" ")[0], text, values: args() });
            n++;
          }
        }),
      );
      return { n, seconds: (performance.now() - started) / 1000, cpu: postgresCpuSeconds() - cpu };
    };
    for (let k = 0; k < kinds.length; k++) await run(k, WARMUP);
    for (let round = 0; round < ROUNDS; round++)
      for (let i = 0; i < kinds.length; i++) {
        const k = (round + i) % kinds.length;
        const r = await run(k, SECONDS / ROUNDS);
        totals[k]!.n += r.n;
        totals[k]!.seconds += r.seconds;
        totals[k]!.cpu += r.cpu;
      }
    console.log(`\n== statement alone, ${connections} connections, ${ROUNDS} alternating slices:`);
    kinds.forEach((kind, k) => {
      const t = totals[k]!;
      console.log(
        `  ${kind.name.padEnd(40)} ${(t.n / t.seconds).toFixed(0).padStart(6)} statements/s  PostgreSQL CPU ${((t.cpu * 1000) / t.n).toFixed(3)} ms/statement`,
      );
    });
  } finally {
    await pool.end();
  }
}

async function main() {
  if (SUMMARISE) {
    const s = summariseProfile(SUMMARISE, Number(process.argv[3] ?? 1e9));
    console.log(
      `${(s.total / 1000).toFixed(0)} ms sampled\nby area (self time):\n${s.areas}\nby function (self time):\n${s.functions}`,
    );
    return;
  }
  installGuards(Number(env.BENCH_DEADLINE_SECONDS ?? 1800));
  if (!env.BENCH_DATABASE_URL)
    env.BENCH_PG_OPTIONS ??= "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on";
  const { benchDatabase } = await import("./postgres");
  const database = await benchDatabase();
  const dbEnv: NodeJS.ProcessEnv = {
    ...env,
    METRICS_TOKEN: METRICS_TOKEN,
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: env.BENCH_POOL_SIZE ?? "10",
    NEXT_TELEMETRY_DISABLED: "1",
    LOYALTY_JOBS: "off",
  };
  delete dbEnv.PGLITE_DIR;
  delete dbEnv.NODE_OPTIONS;
  const sql = new pg.Pool({ connectionString: database.url, max: 2 });
  /** PostgreSQL's CPU per request counts the processes of this server only. */
  const pgPort = Number(new URL(database.url).port) || undefined;
  sql.on("error", () => {});
  register(
    "profile's pg pool",
    () => sql.end(),
    () => {},
  );
  await ensureBuild(dbEnv);
  const program = await createProgram(dbEnv);
  let statements = true;
  try {
    await sql.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await sql.query("SELECT pg_stat_statements_reset()");
  } catch (err) {
    statements = false;
    log(`no pg_stat_statements (${(err as Error).message.split("\n")[0]}): commits per request only`);
  }
  const work = new Workload(program);
  {
    const loader = await startOurs({ workers: 1, env: dbEnv, label: "loader" });
    await work.load(loader, sql);
    await loader.child.stop();
  }
  log(`${CUSTOMERS.toLocaleString("en")} customers loaded`);
  rmSync(DIR, { recursive: true, force: true });

  // The production command (`npm start`'s, with its node flags), with profiling flags or another build's entry.
  const start = productionCommand();
  const command = (nodeFlags: string, main = "dist/main.mjs") =>
    start.replace(/^node\b/, `node${nodeFlags}`).replace("dist/main.mjs", main);
  /** PROFILE_AB_CPU=1: every build of an A/B under --cpu-prof, each in its own directory. */
  const profiled = (i: number) => (AB_CPU ? ` --cpu-prof --cpu-prof-dir=${path.join(DIR, `ab-${i}`)}` : "");
  let baseline: Server | undefined;
  if (AGAINST.length > 0) {
    const others: Server[] = [];
    for (const dir of AGAINST) {
      // The database is this build's, migrated by the loader: another build does not migrate it (its own
      // migrations may be older).
      env.BENCH_OURS_COMMAND = command(profiled(others.length), path.join(dir, "dist", "main.mjs")).replace(
        /\s--migrate\b/,
        "",
      );
      others.push(
        await startOurs({ workers: 1, node: NODE, env: { ...dbEnv, ...EXTRA_ENV, ...AGAINST_ENV }, label: dir }),
      );
    }
    env.BENCH_OURS_COMMAND = AB_CPU ? command(profiled(others.length)) : start;
    const after = await startOurs({ workers: 1, node: NODE, env: { ...dbEnv, ...EXTRA_ENV }, label: "this build" });
    const builds = [...others, after];
    const servers = [...builds, ...(BARE ? [await startBaseline(dbEnv, NODE)] : [])];
    /** Every request each server answered (warm-ups included): what its whole CPU profile is divided by. */
    const served = servers.map(() => 0);
    /** When each server's load began: its profile is read from then on (not its start-up). */
    const loadedFrom = servers.map(() => 0);
    for (const kind of KINDS) {
      const request = await requests[kind]!(work, after.baseUrl, sql);
      for (const [i, server] of servers.entries()) {
        loadedFrom[i] ||= Date.now();
        if (WARMUP > 0)
          served[i]! += (await slice(server.baseUrl, request, CONNECTIONS, WARMUP)).totalCompletedRequests;
      }
      const raws: Awaited<ReturnType<typeof slice>>[][] = servers.map(() => []);
      const cpu = servers.map(() => 0);
      for (let round = 0; round < ROUNDS; round++)
        for (let k = 0; k < servers.length; k++) {
          const i = (round + k) % servers.length;
          const c0 = serverCpuSeconds(servers[i]!);
          const raw = await slice(servers[i]!.baseUrl, request, CONNECTIONS, SECONDS);
          raws[i]!.push(raw);
          served[i]! += raw.totalCompletedRequests;
          cpu[i]! += serverCpuSeconds(servers[i]!) - c0;
        }
      console.log(`\n== ${kind}, ${CONNECTIONS} connections, ${ROUNDS} alternating slices of ${SECONDS} s:`);
      servers.forEach((server, i) => {
        const f = summarize(server.baseUrl, CONNECTIONS, raws[i]!);
        console.log(
          `  ${server.name.padEnd(40)} ${f.rps.toFixed(0).padStart(6)} req/s  p50 ${f.p50} ms  p99 ${f.p99} ms  CPU ${((cpu[i]! * 1000) / f.requests).toFixed(3)} ms/request  (${f.non2xx} non-2xx, ${f.errors} errors)`,
        );
      });
    }
    if (AB_CPU) await compareProfiles(builds, served, loadedFrom);
    return;
  }
  for (const kind of KINDS) {
    if (kind === "statement") {
      await statementsAlone(database.url, work);
      continue;
    }
    const make = requests[kind];
    if (!make) throw new Error(`unknown kind ${kind}; kinds: ${Object.keys(requests).join(", ")}`);
    const dir = path.join(DIR, kind);
    mkdirSync(dir, { recursive: true });
    const main = BUILD ? path.join(BUILD, "dist", "main.mjs") : undefined;
    env.BENCH_OURS_COMMAND =
      CPU || main
        ? command(CPU ? ` --cpu-prof --cpu-prof-dir=${dir}` : "", main).replace(main ? /\s--migrate\b/ : /^$/, "")
        : start;
    const ours = await startOurs({
      workers: 1,
      node: NODE,
      env: { ...dbEnv, ...EXTRA_ENV },
      label: `ours (${kind}${BUILD ? `, ${BUILD}` : ""})`,
    });
    const request = await make(work, ours.baseUrl, sql);
    if (WARMUP > 0) await slice(ours.baseUrl, request, CONNECTIONS, WARMUP);
    const commits = async () =>
      Number(
        (await sql.query(`SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()`))
          .rows[0].n,
      );
    if (statements) await sql.query("SELECT pg_stat_statements_reset()");
    const before = await commits();
    const cpuBefore = serverCpuSeconds(ours);
    const pgBefore = postgresCpuSeconds(pgPort);
    const figures = summarize(ours.baseUrl, CONNECTIONS, [await slice(ours.baseUrl, request, CONNECTIONS, SECONDS)]);
    const loaded = Date.now();
    const cpuMs = ((serverCpuSeconds(ours) - cpuBefore) * 1000) / figures.requests;
    const pgMs = ((postgresCpuSeconds(pgPort) - pgBefore) * 1000) / figures.requests;
    const n = figures.requests;
    // pg_stat_database is updated when a backend reports (at most every 500 ms and at idle): give it a moment.
    await new Promise((r) => setTimeout(r, 1200));
    const perRequest = ((await commits()) - before - 2) / n;
    console.log(
      `\n== ${kind}: ${figures.rps.toFixed(0)} req/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms, ${n} requests (${figures.non2xx} non-2xx, ${figures.errors} errors) at ${CONNECTIONS} connections; server CPU ${cpuMs.toFixed(2)} ms per request; PostgreSQL CPU ${pgMs.toFixed(2)} ms per request (its server's processes, /proc); ${perRequest.toFixed(2)} commits per request`,
    );
    console.log(`handed over to the locked path: ${await handovers(ours)}`);
    if (statements) await printStatements(sql, n);
    const gap = (Date.now() - loaded) / 1000;
    if (BARE) {
      const bare: Server = (baseline ??= await startBaseline(dbEnv, NODE));
      if (WARMUP > 0) await slice(bare.baseUrl, request, CONNECTIONS, WARMUP);
      if (statements) await sql.query("SELECT pg_stat_statements_reset()");
      const cpu = serverCpuSeconds(bare);
      const f = summarize(bare.baseUrl, CONNECTIONS, [await slice(bare.baseUrl, request, CONNECTIONS, SECONDS)]);
      console.log(
        `   bare node:http + pg, same load just after: ${f.rps.toFixed(0)} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms; server CPU ${(((serverCpuSeconds(bare) - cpu) * 1000) / f.requests).toFixed(2)} ms per request`,
      );
      if (statements) await printStatements(sql, f.requests);
    }
    await ours.child.stop();
    if (!CPU) continue;
    // The shell that ran the command has exited; the server writes its profile as it exits, a moment later.
    let file: string | undefined;
    for (let i = 0; i < 100 && !file; i++) {
      file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
      await new Promise((r) => setTimeout(r, 200));
    }
    if (!file) {
      log(`no CPU profile in ${dir} (the server did not exit cleanly)`);
      continue;
    }
    const s = summariseProfile(path.join(dir, file), SECONDS + gap, n);
    console.log(
      `CPU of the measured ${SECONDS} s: ${(s.total / 1000).toFixed(0)} ms sampled (${path.join(dir, file)})`,
    );
    console.log(`by area (self time):\n${s.areas}`);
    console.log(`by function (self time):\n${s.functions}`);
  }
}

main()
  .catch((err) => {
    console.error(`\nprofile failed: ${(err as Error)?.stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await teardown();
    process.exit();
  });
