/**
 * `npm run bench`: the real app (`next start`) against a bare node:http + pg baseline running the same SQL
 * (bench/baseline-server.ts), in the same run, on one PostgreSQL holding 100,000 customers. Prints req/s, p50
 * and p99 for both and ours/baseline, checks the targets, and writes bench/results/latest.json. A report, not
 * a test: it exits 0 when a target is missed, non-zero only when the bench itself could not run.
 *
 * Environment (all optional):
 *   BENCH_DATABASE_URL      use this PostgreSQL server (a bench_* database is created on it and dropped);
 *                           default: a throwaway PostgreSQL 15 server in /tmp, deleted at the end
 *   BENCH_CUSTOMERS=100000  customers loaded before measuring
 *   BENCH_SECONDS=15        measured seconds per server and run (after BENCH_WARMUP_SECONDS=3 of warm-up),
 *                           taken as BENCH_ROUNDS=3 slices in which ours and the baseline alternate
 *   BENCH_POOL_SIZE=10      DATABASE_POOL_SIZE for the app and the baseline's pg Pool
 *   Every run of "ours" keeps the rate-limit buckets in PostgreSQL (the default on a server); one row compares
 *   that with a second instance that keeps them in memory (RATE_LIMIT_STORE=memory).
 *   BENCH_EXTRA=0           skip the extra runs (no-DB floor, balance increases, hot spot, coupon import and
 *                           assignment, reward redemption)
 *   BENCH_ONLY=floor,get    run only these rows (of floor, get, ratelimit, batch100, extra, batch1000; `extra` is the
 *                           balance increases, hot spot, coupons and redemptions), e.g. to measure the edge's
 *                           cost on the floor and GET rows without the rest; the default runs every row
 *   BENCH_DASHBOARD=1       also time the dashboard's reads on 1,000,000 customers (adds ~6 minutes)
 *   BENCH_DEADLINE_SECONDS=840  the run aborts itself (and cleans up) after this long
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon, { type RawResult, type Request as LoadRequest } from "autocannon";
import pg from "pg";
import { demoCustomers } from "@/scripts/seed/demo";
import { installGuards, log, register, spawnChild, teardown, type Child } from "./lifecycle";
import { benchDatabase, freePort } from "./postgres";

const ROOT = path.resolve(import.meta.dirname, "..");
const env = process.env;
const CUSTOMERS = Number(env.BENCH_CUSTOMERS ?? 100_000);
const SECONDS = Number(env.BENCH_SECONDS ?? 15);
const WARMUP = Number(env.BENCH_WARMUP_SECONDS ?? 3);
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 3));
const POOL = String(env.BENCH_POOL_SIZE ?? 10);
const EXTRA = env.BENCH_EXTRA !== "0";
const ONLY = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(",").map((s) => s.trim())) : null;
/** Whether the row named `id` runs (BENCH_ONLY; the extra rows also need BENCH_EXTRA). */
const runs = (id: "floor" | "get" | "ratelimit" | "batch100" | "extra" | "batch1000") =>
  (ONLY === null || ONLY.has(id)) && (EXTRA || (id !== "floor" && id !== "extra"));
const DASHBOARD = env.BENCH_DASHBOARD === "1";
const DEADLINE = Number(env.BENCH_DEADLINE_SECONDS ?? 840);
const TARGETS = { getRatio: 0.5, getP99Ms: 25, batch1000Ms: 1000 };

// ---------------------------------------------------------------------------------------------------------------
// Processes

/** Runs a command to completion (killed on abort) and returns its output; throws on a non-zero exit. */
async function runCommand(
  name: string,
  command: string,
  args: string[],
  childEnv: NodeJS.ProcessEnv,
  timeoutMs = 300_000,
): Promise<string> {
  const child = spawnChild(name, command, args, { cwd: ROOT, env: childEnv });
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => void child.stop(), timeoutMs);
    child.proc.once("exit", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  if (code !== 0) throw new Error(`${name} failed (exit ${code}):\n${child.output().slice(-4000)}`);
  return child.output();
}

/** `npm run --silent loyalty -- …`: the CLI prints its result as JSON on its last stdout line. */
async function cli(dbEnv: NodeJS.ProcessEnv, ...args: string[]): Promise<Record<string, string>> {
  const out = await runCommand(
    `loyalty ${args.slice(0, 2).join(" ")}`,
    "npm",
    ["run", "--silent", "loyalty", "--", ...args],
    dbEnv,
    120_000,
  );
  const last =
    out
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .at(-1) ?? "";
  const json = JSON.parse(last);
  if (json.error) throw new Error(`CLI ${args.join(" ")}: ${JSON.stringify(json.error)}`);
  return json;
}

async function waitFor(name: string, child: Child, url: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`${name} exited early:\n${child.output().slice(-4000)}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${name} did not answer within ${timeoutMs / 1000} s:\n${child.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function startOurs(dbEnv: NodeJS.ProcessEnv): Promise<{ baseUrl: string; child: Child }> {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    log("no production build (.next/BUILD_ID): running `npx next build`");
    await runCommand("next build", "npx", ["next", "build"], dbEnv, 600_000);
  }
  const port = await freePort();
  const child = spawnChild(
    "next start",
    path.join(ROOT, "node_modules/.bin/next"),
    ["start", "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: ROOT,
      env: dbEnv,
    },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor("next start", child, `${baseUrl}/v1/openapi.json`);
  return { baseUrl, child };
}

async function startBaseline(dbEnv: NodeJS.ProcessEnv): Promise<{ baseUrl: string; child: Child }> {
  const port = await freePort();
  const child = spawnChild(
    "baseline",
    process.execPath,
    ["--no-warnings", "--import", "tsx", "bench/baseline-server.ts"],
    {
      cwd: ROOT,
      env: { ...dbEnv, PORT: String(port) },
    },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor("baseline", child, `${baseUrl}/`);
  return { baseUrl, child };
}

// ---------------------------------------------------------------------------------------------------------------
// Load

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  non2xx: number;
}

const slice = (url: string, request: LoadRequest, connections: number, seconds: number) =>
  autocannon({ url, connections, duration: seconds, requests: [request], skipAggregateResult: true });

/** Merges slices: req/s over their total time, latency percentiles from their merged histograms. */
function summarize(url: string, connections: number, raws: RawResult[]): Figures {
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

async function measure(
  url: string,
  request: LoadRequest,
  connections: number,
  seconds = SECONDS,
  warmup = WARMUP,
): Promise<Figures> {
  if (warmup > 0) await slice(url, request, connections, warmup);
  return summarize(url, connections, [await slice(url, request, connections, seconds)]);
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

async function main() {
  installGuards(DEADLINE);
  const started = Date.now();
  const loadAtStart = os.loadavg();
  const phases: Record<string, number> = {};
  const phase = (name: string, since: number) => (phases[name] = Math.round((Date.now() - since) / 100) / 10);

  // 1. PostgreSQL ---------------------------------------------------------------------------------------------
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

  // 2. Setup: schema, program, tiers, API key (through the CLI) ----------------------------------------------
  await runCommand("db:migrate", "npm", ["run", "--silent", "db:migrate"], dbEnv);
  const { programId } = await cli(dbEnv, "program", "create", "--name", "Bench");
  for (const [name, points, factor] of [
    ["Bronze", 0, 1],
    ["Silver", 1000, 1.25],
    ["Gold", 5000, 1.5],
  ] as const) {
    await cli(
      dbEnv,
      "tier",
      "create",
      "--program",
      programId!,
      "--name",
      name,
      "--required-points",
      String(points),
      "--factor",
      String(factor),
    );
  }
  const { key } = await cli(
    dbEnv,
    "apikey",
    "create",
    "--program",
    programId!,
    "--name",
    "bench",
    "--rate-limit",
    "1000000",
  );
  phase("setup", t);
  log(`program ${programId} ready (setup ${phases.setup} s)`);

  // 3. Ours, then 100,000 customers through its own batch endpoint ------------------------------------------
  t = Date.now();
  const ours = await startOurs(dbEnv);
  phase("appStart", t);
  log(`ours: next start on ${ours.baseUrl} (${phases.appStart} s)`);

  const headers = { "api-key": key!, "content-type": "application/json" };
  const base = `/v1/programs/${programId}`;
  const people = demoCustomers(CUSTOMERS);
  const emails = people.map((p) => p.email);
  t = Date.now();
  let next = 0;
  let loaded = 0;
  const loader = async () => {
    while (next < people.length) {
      const from = next;
      next += 1000;
      const res = await fetch(`${ours.baseUrl}${base}/integrations/api`, {
        method: "POST",
        headers,
        body: JSON.stringify(people.slice(from, from + 1000)),
      });
      if (res.status !== 201) throw new Error(`loading customers ${from}…: ${res.status} ${await res.text()}`);
      loaded += Math.min(1000, people.length - from);
      if (loaded % 10_000 === 0 || loaded === people.length) log(`  loaded ${loaded.toLocaleString("en")} customers`);
    }
  };
  await Promise.all([loader(), loader()]);
  const { rows: countRows } = await sql.query(`SELECT count(*)::int AS n FROM "Customer" WHERE "programId" = $1`, [
    programId,
  ]);
  if (countRows[0].n !== CUSTOMERS) throw new Error(`expected ${CUSTOMERS} customers, found ${countRows[0].n}`);
  await sql.query("VACUUM ANALYZE");
  phase("load", t);
  log(
    `${CUSTOMERS.toLocaleString("en")} customers loaded in ${phases.load} s (${Math.round(CUSTOMERS / phases.load!)} /s)`,
  );

  const baseline = await startBaseline(dbEnv);
  log(`baseline on ${baseline.baseUrl}`);

  // Same answer from both for the same customer: the comparison is of equal work.
  const sample = encodeURIComponent(emails[0]!);
  const [a, b] = await Promise.all(
    [ours, baseline].map(async (s) => {
      const res = await fetch(`${s.baseUrl}${base}/customers/${sample}`, { headers });
      return { status: res.status, body: await res.text() };
    }),
  );
  if (a!.status !== 200 || a!.body !== b!.body)
    throw new Error(
      `ours and the baseline disagree on GET:\nours ${a!.status} ${a!.body}\nbaseline ${b!.status} ${b!.body}`,
    );

  // 4. Runs ---------------------------------------------------------------------------------------------------
  t = Date.now();
  const tag = Math.random().toString(36).slice(2, 7);
  let fresh = 0;
  /** A customer the program does not have yet: a generator row with a unique e-mail and external id. */
  const newCustomer = (payload: Record<string, unknown> = {}) => {
    const p = pick(people);
    const n = fresh++;
    return {
      email: p.email.replace("@", `+${tag}${n}@`),
      feature: "user",
      payload: { ...p.payload, externalCustomerId: `BENCH-${tag}-${n}`, ...payload },
    };
  };
  /** An existing customer, with fields from another generator row: an update. */
  const existingCustomer = (payload: Record<string, unknown> = {}) => {
    const i = Math.floor(Math.random() * people.length);
    const other = pick(people).payload;
    return {
      email: people[i]!.email,
      feature: "user",
      payload: {
        externalCustomerId: people[i]!.payload.externalCustomerId,
        firstName: other.firstName,
        phone: other.phone,
        emailVerified: Math.random() < 0.5,
        ...payload,
      },
    };
  };
  const batchBody = (size: number) =>
    JSON.stringify(Array.from({ length: size }, (_, i) => (i % 2 ? existingCustomer() : newCustomer())));

  const getCustomer: LoadRequest = {
    method: "GET",
    headers,
    setupRequest: (req) => ({ ...req, path: `${base}/customers/${encodeURIComponent(pick(emails))}` }),
  };
  const batch100: LoadRequest = {
    method: "POST",
    path: `${base}/integrations/api`,
    headers,
    setupRequest: (req) => ({ ...req, body: batchBody(100) }),
  };
  const increase = (among: readonly string[]): LoadRequest => ({
    method: "POST",
    headers,
    setupRequest: (req) => ({
      ...req,
      path: `${base}/customers/${encodeURIComponent(pick(among))}/balance/increase`,
      body: JSON.stringify({ points: 1 + Math.floor(Math.random() * 100) }),
    }),
  });

  interface Row {
    name: string;
    connections: number;
    ours: Figures;
    baseline?: Figures;
    ratio?: number;
    target?: string;
    pass?: boolean;
  }
  const rows: Row[] = [];
  /**
   * Ours and the baseline take turns (after a warm-up each): ROUNDS slices of seconds/ROUNDS each, so a burst
   * of load from elsewhere on a shared machine hits both rather than one of them.
   */
  const compare = async (
    name: string,
    request: LoadRequest,
    connections: number,
    seconds = SECONDS,
    warmup = WARMUP,
    against: { baseUrl: string } = baseline,
  ): Promise<Row> => {
    log(
      `${name}, ${connections} connections: ${warmup} s warm-up each, then ${ROUNDS} × ${+(seconds / ROUNDS).toFixed(1)} s each, alternating`,
    );
    await slice(ours.baseUrl, request, connections, warmup);
    await slice(against.baseUrl, request, connections, warmup);
    const mine: RawResult[] = [];
    const theirs: RawResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      mine.push(await slice(ours.baseUrl, request, connections, seconds / ROUNDS));
      theirs.push(await slice(against.baseUrl, request, connections, seconds / ROUNDS));
    }
    const o = summarize(ours.baseUrl, connections, mine);
    const bl = summarize(against.baseUrl, connections, theirs);
    log(`  ours ${Math.round(o.rps)} req/s p99 ${o.p99} ms; baseline ${Math.round(bl.rps)} req/s p99 ${bl.p99} ms`);
    const row = { name, connections, ours: o, baseline: bl, ratio: o.rps / bl.rps };
    rows.push(row);
    return row;
  };

  let couponImport: { codes: number; seconds: number } | null = null;
  if (runs("floor")) {
    await compare(
      "floor: 401, no api-key, no DB",
      { method: "GET", path: `${base}/customers/x%40example.com` },
      32,
      5,
      2,
    );
  }
  const get = runs("get") ? await compare("GET /customers/{email}", getCustomer, 32) : null;
  if (get) {
    get.target = `ratio ≥ ${TARGETS.getRatio}, p99 ≤ ${TARGETS.getP99Ms} ms`;
    get.pass =
      get.ratio! >= TARGETS.getRatio &&
      get.ours.p99 <= TARGETS.getP99Ms &&
      get.ours.non2xx === 0 &&
      get.ours.errors === 0;
  }
  if (runs("ratelimit")) {
    // The rate-limit buckets: `ours` keeps them in PostgreSQL (the default with a server: one limit for every
    // instance, one more statement per request); a second instance of the same build keeps them in memory
    // (RATE_LIMIT_STORE=memory, as before: exact only for one instance). Its figures are in the baseline columns.
    const memory = await startOurs({ ...dbEnv, RATE_LIMIT_STORE: "memory" });
    const row = await compare("GET, rate limit in PG (base: in memory)", getCustomer, 32, SECONDS, WARMUP, memory);
    row.target = "cost of the shared bucket";
    row.pass = row.ours.non2xx === 0 && row.ours.errors === 0;
    await memory.child.stop();
  }
  if (runs("batch100")) await compare("POST /integrations/api, 100 items", batch100, 10);
  if (runs("extra")) {
    await compare("POST …/balance/increase", increase(emails), 32, 10);
    log("hot spot: increases on 10 customers, 32 connections (ours)");
    const hotEmails = emails.slice(0, 10);
    const hot = await measure(ours.baseUrl, increase(hotEmails), 32, 10);
    const { rows: broken } = await sql.query(
      `SELECT c.email FROM "Customer" c JOIN "LoyaltyData" l ON l."customerId" = c.id
       WHERE c."programId" = $1 AND (l.balance <> (SELECT coalesce(sum(points), 0) FROM "LedgerEntry" e WHERE e."customerId" = c.id)
          OR l.balance <> (SELECT coalesce(sum(remaining), 0) FROM "PointLot" p WHERE p."customerId" = c.id) OR l.balance < 0)`,
      [programId],
    );
    rows.push({
      name: "hot spot: increases on 10 customers",
      connections: 32,
      ours: hot,
      target: "balance = Σ ledger = Σ lots",
      pass: broken.length === 0 && hot.non2xx === 0,
    });

    // Coupons and rewards (ours only: the baseline has no equivalent). A CSV import through the CLI, then
    // assignments from that pool to random customers, then redemptions by the hot-spot customers (who now hold
    // thousands of points); afterwards no code may have two owners and stock + redemptions must equal the start.
    const codeCount = 100_000;
    const csv = path.join(os.tmpdir(), `loyalty-bench-codes-${process.pid}.csv`);
    writeFileSync(csv, Array.from({ length: codeCount }, (_, i) => `BENCH-${tag}-${i}`).join("\n"));
    const { couponPoolId } = await cli(dbEnv, "coupon-pool", "create", "--program", programId!, "--name", "Bench pool");
    const importStart = performance.now();
    await cli(dbEnv, "coupon-pool", "import", "--pool", couponPoolId!, "--file", csv);
    const importSeconds = (performance.now() - importStart) / 1000;
    rmSync(csv, { force: true });
    log(
      `coupon import: ${codeCount.toLocaleString("en")} codes in ${importSeconds.toFixed(1)} s through the CLI (${Math.round(codeCount / importSeconds).toLocaleString("en")} codes/s, process start included)`,
    );
    couponImport = { codes: codeCount, seconds: Math.round(importSeconds * 10) / 10 };
    log("coupon assignments to random customers, 32 connections (ours)");
    const assign = await measure(
      ours.baseUrl,
      {
        method: "POST",
        headers,
        setupRequest: (req) => ({
          ...req,
          path: `${base}/customers/${encodeURIComponent(pick(emails))}/coupons`,
          body: JSON.stringify({ couponPoolId }),
        }),
      },
      32,
      10,
    );
    const { rows: doubles } = await sql.query(
      `SELECT count(*)::int AS n FROM (SELECT code FROM "Coupon" WHERE "poolId" = $1 AND "customerId" IS NOT NULL GROUP BY code HAVING count(*) > 1) d`,
      [couponPoolId],
    );
    rows.push({
      name: "POST …/coupons (assign from a pool)",
      connections: 32,
      ours: assign,
      target: "no code assigned twice",
      pass: doubles[0].n === 0 && assign.non2xx === 0,
    });
    const stock = 1_000_000;
    const { rewardId } = await cli(
      dbEnv,
      "reward",
      "create",
      "--program",
      programId!,
      "--name",
      "Bench mug",
      "--cost-points",
      "1",
      "--stock",
      String(stock),
    );
    log("reward redemptions by the 10 hot-spot customers, 32 connections (ours)");
    const redeem = await measure(
      ours.baseUrl,
      {
        method: "POST",
        headers,
        setupRequest: (req) => ({
          ...req,
          path: `${base}/customers/${encodeURIComponent(pick(hotEmails))}/rewards/${rewardId}/redeem`,
          body: "{}",
        }),
      },
      32,
      10,
    );
    const { rows: stockRows } = await sql.query(
      `SELECT r.stock + (SELECT count(*) FROM "Redemption" x WHERE x."rewardId" = r.id)::int AS total FROM "Reward" r WHERE r.id = $1`,
      [rewardId],
    );
    rows.push({
      name: "POST …/rewards/{id}/redeem (10 customers)",
      connections: 32,
      ours: redeem,
      target: "stock + redemptions = initial stock",
      pass: stockRows[0].total === stock && redeem.non2xx === 0,
    });
  }

  // One 1,000-item batch at a time (half new, half existing): one warm-up, then the median of 5.
  const timeBatches = async (baseUrl: string) => {
    const times: number[] = [];
    for (let run = 0; run < 6; run++) {
      const body = batchBody(1000);
      const t0 = performance.now();
      const res = await fetch(`${baseUrl}${base}/integrations/api`, { method: "POST", headers, body });
      const ms = performance.now() - t0;
      if (res.status !== 201) throw new Error(`1,000-item batch: ${res.status} ${await res.text()}`);
      if (run > 0) times.push(Math.round(ms * 10) / 10);
    }
    return { times, median: [...times].sort((x, y) => x - y)[2]! };
  };
  let big: { ours: Awaited<ReturnType<typeof timeBatches>>; baseline: Awaited<ReturnType<typeof timeBatches>> } | null =
    null;
  if (runs("batch1000")) {
    log("1,000-item batch upserts: ours");
    const bigOurs = await timeBatches(ours.baseUrl);
    log("1,000-item batch upserts: baseline");
    big = { ours: bigOurs, baseline: await timeBatches(baseline.baseUrl) };
  }
  phase("runs", t);

  // Report ----------------------------------------------------------------------------------------------------
  const n0 = (x: number) => Math.round(x).toLocaleString("en");
  const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
  const cell = (f?: Figures) =>
    f ? `${n0(f.rps).padStart(7)} ${ms(f.p50).padStart(6)} ${ms(f.p99).padStart(6)}` : "".padStart(21);
  const width = 44;
  const lines = [
    "",
    `npm run bench — PostgreSQL ${versionRows[0].server_version}, ${CUSTOMERS.toLocaleString("en")} customers, ${SECONDS} s per server and run (${ROUNDS} alternating slices) after ${WARMUP} s warm-up, pool ${POOL}, ${os.cpus().length} cores`,
    "",
    `${"run".padEnd(width)} conns  ${"ours: req/s    p50    p99".padEnd(22)}  ${"base: req/s    p50    p99".padEnd(22)}  ratio  verdict`,
  ];
  for (const r of rows) {
    const ratio = r.ratio === undefined ? "" : r.ratio.toFixed(2);
    const verdict = r.target ? `${r.pass ? "PASS" : "FAIL"} (${r.target})` : "";
    lines.push(
      `${r.name.padEnd(width)} ${String(r.connections).padStart(5)}  ${cell(r.ours).padEnd(22)}  ${cell(r.baseline).padEnd(22)}  ${ratio.padStart(5)}  ${verdict}`,
    );
  }
  const bigPass = big ? big.ours.median <= TARGETS.batch1000Ms : null;
  if (big) {
    lines.push(
      `${"one 1,000-item batch upsert, median of 5".padEnd(width)} ${"1".padStart(5)}  ${`${ms(big.ours.median)} ms`.padStart(21).padEnd(22)}  ${`${ms(big.baseline.median)} ms`.padStart(21).padEnd(22)}  ${(big.baseline.median / big.ours.median).toFixed(2).padStart(5)}  ${bigPass ? "PASS" : "FAIL"} (≤ ${TARGETS.batch1000Ms} ms)`,
    );
  }
  if (couponImport) {
    lines.push(
      `coupon CSV import through the CLI: ${couponImport.codes.toLocaleString("en")} codes in ${couponImport.seconds} s (${n0(couponImport.codes / couponImport.seconds)} codes/s, process start included)`,
    );
  }
  lines.push("", "latencies in ms; ratio = ours/baseline req/s (for the 1,000-item batch: baseline time / ours).");
  const bad = rows.filter(
    (r) => r.ours.errors || r.ours.non2xx > (r.name.startsWith("floor") ? r.ours.requests : 0) || r.baseline?.errors,
  );
  if (bad.length)
    lines.push(
      `errors or unexpected statuses: ${bad.map((r) => `${r.name}: ours ${r.ours.errors} errors/${r.ours.non2xx} non-2xx, baseline ${r.baseline?.errors ?? 0}/${r.baseline?.non2xx ?? 0}`).join("; ")}`,
    );
  const loadAtEnd = os.loadavg();
  if (loadAtStart[0]! > 0.5) {
    lines.push(
      `note: the machine was busy before the bench started (load average ${loadAtStart.map((x) => x.toFixed(2)).join(" ")}): absolute figures are low; the ratios are the figures to read.`,
    );
  }
  const verdict = (pass: boolean | null | undefined) =>
    pass === null || pass === undefined ? "not run" : pass ? "PASS" : "FAIL";
  lines.push(
    `targets: GET ratio ≥ ${TARGETS.getRatio} and p99 ≤ ${TARGETS.getP99Ms} ms: ${verdict(get?.pass)}; 1,000-item batch ≤ ${TARGETS.batch1000Ms} ms: ${verdict(bigPass)}`,
  );
  console.log(lines.join("\n"));

  let dashboard = null;
  if (DASHBOARD) {
    await ours.child.stop();
    await baseline.child.stop();
    dashboard = await runDashboard(database.url);
  }

  const totalSeconds = Math.round((Date.now() - started) / 1000);
  console.log(
    `\ntotal bench time ${totalSeconds} s (setup ${phases.setup} s, app start ${phases.appStart} s, load ${phases.load} s, runs ${phases.runs} s)`,
  );
  mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
  const file = path.join(ROOT, "bench/results/latest.json");
  writeFileSync(
    file,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        machine: {
          cores: os.cpus().length,
          loadAverageAtStart: loadAtStart,
          loadAverageAtEnd: loadAtEnd,
          node: process.version,
          postgres: versionRows[0].server_version,
        },
        settings: {
          only: ONLY ? [...ONLY] : null,
          customers: CUSTOMERS,
          seconds: SECONDS,
          rounds: ROUNDS,
          warmupSeconds: WARMUP,
          poolSize: Number(POOL),
          database: database.describe,
        },
        targets: TARGETS,
        rows,
        batch1000: big ? { ...big, target: `≤ ${TARGETS.batch1000Ms} ms`, pass: bigPass } : null,
        couponImport,
        pass: { get: get?.pass ?? null, batch1000: bigPass },
        dashboard,
        phasesSeconds: phases,
        totalSeconds,
      },
      null,
      2,
    ),
  );
  log(`results written to ${path.relative(ROOT, file)}`);
  await closeSql();
}

/** Opt-in (BENCH_DASHBOARD=1): the dashboard's reads at 1,000,000 customers, in-process (bench/dashboard.ts). */
async function runDashboard(url: string) {
  const { PrismaClient } = await import("@/lib/generated/prisma/client");
  const { openAdapter } = await import("@/lib/db/adapter");
  const { benchDashboard } = await import("./dashboard");
  const big = Number(env.BENCH_DASHBOARD_CUSTOMERS ?? 1_000_000);
  log(`dashboard reads: loading ${big.toLocaleString("en")} customers with 5 ledger entries each`);
  const opened = await openAdapter({ kind: "postgres", url });
  const prisma = new PrismaClient({ adapter: opened.factory });
  try {
    const d = await benchDashboard(prisma, big, 5, log);
    const f = (x: { p50: number; p99: number }) =>
      `p50 ${x.p50.toFixed(1).padStart(6)} ms   p99 ${x.p99.toFixed(1).padStart(6)} ms`;
    const v = (x: { p99: number }) => (x.p99 <= 50 ? "PASS" : "FAIL");
    console.log(
      `\nDashboard reads — ${d.customers.toLocaleString("en")} customers, ${d.entries.toLocaleString("en")} ledger entries (in-process)`,
    );
    console.log(`  baseline: customer by primary key       ${f(d.baseline)}`);
    console.log(`  e-mail prefix search (3–8 chars)        ${f(d.search)}   ${v(d.search)} (p99 ≤ 50 ms)`);
    console.log(`  prefix search + tier filter             ${f(d.searchTier)}`);
    console.log(`  customer list, newest first             ${f(d.listNewest)}`);
    console.log(`  customer page data (profile + history)  ${f(d.page)}   ${v(d.page)} (p99 ≤ 50 ms)`);
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
