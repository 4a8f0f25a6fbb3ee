/**
 * `npm run bench`: the app against a bare node:http + pg baseline doing the same SQL, in the same run, on
 * one PostgreSQL server with 100,000 customers. Reports req/s, p50, p99 and ours/baseline, and checks the
 * targets of the issues. Uses BENCH_DATABASE_URL if set, else starts a throwaway PostgreSQL 15 itself.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import autocannon, { type Request as LoadRequest } from "autocannon";
import { createDatabase, freePort, ROOT, startApp, withPrisma, type RunningApp } from "../test/helpers/app";
import { applyUserBatch } from "@/lib/domain/customers";
import { createApiKey } from "@/lib/domain/api-keys";
import { createProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";
import { benchDashboard } from "./dashboard";

const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 100_000);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const POOL = "10";
const log = (...args: unknown[]) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);

const cleanups: (() => Promise<void> | void)[] = [];
async function cleanup() {
  for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch(() => {});
}
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));

function startPostgres(): string {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  const env = { ...process.env, PGPORT_TEST: process.env.BENCH_PGPORT ?? "55470" };
  const r = spawnSync("bash", ["scripts/pg-test-server.sh", "start"], { cwd: ROOT, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`could not start PostgreSQL: ${r.stderr}`);
  cleanups.push(() => void spawnSync("bash", ["scripts/pg-test-server.sh", "stop"], { cwd: ROOT, env }));
  return r.stdout.trim().split("\n").at(-1)!.replace(/^TEST_DATABASE_URL=/, "");
}

async function startBaseline(env: NodeJS.ProcessEnv): Promise<{ baseUrl: string; stop(): void }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--no-warnings", "--import", "tsx", "bench/baseline-server.ts"], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), DATABASE_POOL_SIZE: POOL },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d) => String(d).includes("listening") && resolve());
    child.once("exit", () => reject(new Error("baseline exited")));
  });
  return { baseUrl: `http://127.0.0.1:${port}`, stop: () => void child.kill() };
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function load(url: string, request: LoadRequest, connections: number, seconds = DURATION): Promise<Figures> {
  await autocannon({ url, connections, duration: 2, requests: [request] }); // warm-up
  const r = await autocannon({ url, connections, duration: seconds, requests: [request] });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}

const pick = (n: number) => Math.floor(Math.random() * n);
const emailOf = (i: number) => `bench.${i}@example.com`;

async function main() {
  const started = Date.now();
  process.env.TEST_DATABASE_URL = startPostgres();
  const database = await createDatabase("postgres");
  cleanups.push(() => database.drop());
  log(`database ready; loading ${CUSTOMERS} customers`);

  const fixture = await withPrisma(database, async (prisma) => {
    const { programId } = await createProgram(prisma, { name: "Bench" });
    for (const [name, requiredPoints, factor] of [["Bronze", 0, 1], ["Silver", 1000, 1.25], ["Gold", 5000, 1.5]] as const) {
      await createTier(prisma, { programId, name, requiredPoints, factor });
    }
    const key = await createApiKey(prisma, { programId, name: "bench", rateLimitPerSec: 1_000_000 });
    const t0 = Date.now();
    for (let i = 0; i < CUSTOMERS; i += 1000) {
      const items = Array.from({ length: Math.min(1000, CUSTOMERS - i) }, (_, j) => ({
        email: emailOf(i + j),
        feature: "user" as const,
        payload: { firstName: `First${i + j}`, lastName: `Last${i + j}`, externalCustomerId: `EXT-${i + j}` },
      }));
      await prisma.$transaction((tx) => applyUserBatch(tx, programId, items), { timeout: 60_000 });
      if ((i / 1000) % 20 === 19) log(`  ${i + 1000} customers`);
    }
    log(`loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await prisma.$executeRawUnsafe("ANALYZE");
    return { programId, key: key.key };
  });

  const ours: RunningApp = await startApp(database, { DATABASE_POOL_SIZE: POOL });
  cleanups.push(() => ours.stop());
  const baseline = await startBaseline(database.env);
  cleanups.push(() => baseline.stop());
  const headers = { "api-key": fixture.key, "content-type": "application/json" };
  const base = `/v1/programs/${fixture.programId}`;

  const getCustomer: LoadRequest = {
    method: "GET",
    headers,
    setupRequest: (req) => ({ ...req, path: `${base}/customers/${encodeURIComponent(emailOf(pick(CUSTOMERS)))}` }),
  };
  let fresh = 0;
  const batch100: LoadRequest = {
    method: "POST",
    path: `${base}/integrations/api`,
    headers,
    setupRequest: (req) => ({
      ...req,
      body: JSON.stringify(
        Array.from({ length: 100 }, (_, i) => ({
          email: i % 2 ? emailOf(pick(CUSTOMERS)) : `new.${process.pid}.${fresh++}@bench.example`,
          feature: "user",
          payload: { firstName: `F${i}`, emailVerified: i % 3 === 0 },
        })),
      ),
    }),
  };
  const increase = (customers: number): LoadRequest => ({
    method: "POST",
    headers,
    setupRequest: (req) => ({
      ...req,
      path: `${base}/customers/${encodeURIComponent(emailOf(pick(customers)))}/balance/increase`,
      body: JSON.stringify({ points: 1 + pick(100) }),
    }),
  });

  const rows: { name: string; ours: Figures; baseline?: Figures; target?: string; pass?: boolean }[] = [];
  const compare = async (name: string, request: LoadRequest, connections: number) => {
    log(`${name}: ours`);
    const o = await load(ours.baseUrl, request, connections);
    log(`${name}: baseline`);
    const b = await load(baseline.baseUrl, request, connections);
    return { o, b };
  };

  // The framework's floor: a request answered without touching the database (401, no api-key).
  const floor = await compare("no-DB request (32 conns)", { method: "GET", path: `${base}/customers/x%40y.co` }, 32);
  rows.push({ name: "floor: 401 without api-key (no DB), 32 conns", ours: floor.o, baseline: floor.b });

  const get = await compare("GET customer (32 conns)", getCustomer, 32);
  const getRatio = get.o.rps / get.b.rps;
  rows.push({ name: "GET /customers/{email}, 32 conns", ours: get.o, baseline: get.b, target: "ratio ≥ 0.5, p99 ≤ 25 ms", pass: getRatio >= 0.5 && get.o.p99 <= 25 });

  const post = await compare("POST batch of 100 (10 conns)", batch100, 10);
  rows.push({ name: "POST /integrations/api ×100 items, 10 conns", ours: post.o, baseline: post.b });

  const inc = await compare("increase balance (32 conns)", increase(CUSTOMERS), 32);
  const incRatio = inc.o.rps / inc.b.rps;
  rows.push({ name: "POST balance/increase, 32 conns", ours: inc.o, baseline: inc.b, target: "ratio ≥ 0.5", pass: incRatio >= 0.5 });

  log("hot spot: increases on 10 customers");
  const hot = await load(ours.baseUrl, increase(10), 32);
  const { rows: broken } = await database.sql!.query(
    `SELECT c.email FROM "Customer" c JOIN "LoyaltyData" l ON l."customerId" = c.id
     WHERE c."programId" = $1 AND (l.balance <> (SELECT coalesce(sum(points), 0) FROM "LedgerEntry" e WHERE e."customerId" = c.id)
        OR l.balance <> (SELECT coalesce(sum(remaining), 0) FROM "PointLot" p WHERE p."customerId" = c.id) OR l.balance < 0)`,
    [fixture.programId],
  );
  rows.push({ name: "hot spot: increases on 10 customers, 32 conns", ours: hot, target: "invariants hold", pass: broken.length === 0 && hot.non2xx === 0 });

  log("1,000-item batch upserts");
  const times: number[] = [];
  for (let run = 0; run < 5; run++) {
    const body = JSON.stringify(
      Array.from({ length: 1000 }, (_, i) => ({
        email: i % 2 ? emailOf(pick(CUSTOMERS)) : `big.${run}.${i}.${process.pid}@bench.example`,
        feature: "user",
        payload: { lastName: `Batch${run}` },
      })),
    );
    const t0 = performance.now();
    const res = await fetch(`${ours.baseUrl}${base}/integrations/api`, { method: "POST", headers, body });
    times.push(performance.now() - t0);
    if (res.status !== 201) throw new Error(`batch failed: ${res.status} ${await res.text()}`);
  }
  const median = [...times].sort((x, y) => x - y)[2]!;

  const fmt = (f?: Figures) => (f ? `${f.rps.toFixed(0).padStart(7)} ${f.p50.toFixed(1).padStart(6)} ${f.p99.toFixed(1).padStart(6)}` : " ".repeat(21));
  console.log(`\nnpm run bench — PostgreSQL, ${CUSTOMERS.toLocaleString("en")} customers, ${DURATION} s per run, pool ${POOL}\n`);
  console.log(`${"".padEnd(46)} ${"ours: req/s    p50    p99".padEnd(28)} ${"baseline: req/s  p50    p99".padEnd(28)} ratio  target`);
  for (const r of rows) {
    const ratio = r.baseline ? (r.ours.rps / r.baseline.rps).toFixed(2) : "  -  ";
    const verdict = r.target ? `${r.pass ? "PASS" : "FAIL"} (${r.target})` : "";
    console.log(`${r.name.padEnd(46)} ${fmt(r.ours).padEnd(28)} ${fmt(r.baseline).padEnd(28)} ${ratio.padStart(5)}  ${verdict}`);
  }
  console.log(`${"1,000-item batch upsert (median of 5)".padEnd(46)} ${`${median.toFixed(0)} ms`.padEnd(28)} ${"".padEnd(28)} ${"".padStart(5)}  ${median <= 1000 ? "PASS" : "FAIL"} (≤ 1000 ms)`);
  console.log(`\nerrors/non-2xx: ${rows.slice(1).map((r) => `${r.name.split(",")[0]}: ${r.ours.errors}/${r.ours.non2xx}`).join("; ")}`);
  console.log(`total bench time ${((Date.now() - started) / 1000).toFixed(0)} s`);

  let dashboard = null;
  if (process.env.BENCH_DASHBOARD !== "off") {
    const big = Number(process.env.BENCH_DASHBOARD_CUSTOMERS ?? 1_000_000);
    log(`dashboard reads: loading ${big} customers with 5 ledger entries each`);
    await ours.stop();
    await baseline.stop();
    dashboard = await withPrisma(database, (prisma) => benchDashboard(prisma, big, 5, log));
    const ms = (t: { p50: number; p99: number }) => `p50 ${t.p50.toFixed(1).padStart(6)} ms   p99 ${t.p99.toFixed(1).padStart(6)} ms`;
    const verdict = (t: { p99: number }) => (t.p99 <= 50 ? "PASS" : "FAIL");
    console.log(`\nDashboard reads — ${dashboard.customers.toLocaleString("en")} customers, ${dashboard.entries.toLocaleString("en")} ledger entries (server time, in-process)`);
    console.log(`  baseline: customer by primary key       ${ms(dashboard.baseline)}`);
    console.log(`  e-mail prefix search (3–8 chars)        ${ms(dashboard.search)}   ×${(dashboard.search.p50 / dashboard.baseline.p50).toFixed(1)} baseline   ${verdict(dashboard.search)} (p99 ≤ 50 ms)`);
    console.log(`  prefix search + tier filter             ${ms(dashboard.searchTier)}`);
    console.log(`  customer list, newest first             ${ms(dashboard.listNewest)}`);
    console.log(`  customer page data (profile + history)  ${ms(dashboard.page)}   ×${(dashboard.page.p50 / dashboard.baseline.p50).toFixed(1)} baseline   ${verdict(dashboard.page)} (p99 ≤ 50 ms)`);
  }

  mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
  writeFileSync(
    path.join(ROOT, "bench/results/latest.json"),
    JSON.stringify({ at: new Date().toISOString(), customers: CUSTOMERS, rows, batch1000ms: times, dashboard }, null, 2),
  );
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(cleanup);
