/**
 * CSV exports at scale: 1,000,000 customers and 5,000,000 ledger entries exported through the real route
 * (`next start`, a signed-in owner, GET /api/staff/{programId}/exports/{kind}) on PostgreSQL, timed, with the
 * server's peak RSS growth over the export (target ≤ 100 MB: the export reads keyset batches of 1,000 rows per pull,
 * so memory must not grow with the row count). Reference in the same run: PostgreSQL's own `COPY (same SELECT) TO
 * STDOUT CSV` through psql, the fastest the same rows can leave the database as CSV. Also times the reports page's
 * queries (lib/staff/queries/reports.ts) for 30 and 365 days, in-process, against a count of the program's ledger.
 *
 *   npm run build && node --no-warnings --import tsx bench/export.ts
 * Environment: BENCH_DATABASE_URL (else a throwaway PostgreSQL 15 in /tmp), BENCH_EXPORT_CUSTOMERS=1000000
 * (5 ledger entries each), BENCH_DEADLINE_SECONDS=2400.
 * The data is loaded by bench/dashboard.ts's loader (benchDashboard, which also times its own reads).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { signIn } from "@/test/support/staff-http";
import { installGuards, log, spawnChild, teardown } from "./lifecycle";
import { benchDatabase, freePort } from "./postgres";

const ROOT = path.resolve(import.meta.dirname, "..");
const PSQL = `${process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin"}/psql`;

/** Resident memory (bytes) of every process in the process group `pgid` (next start and anything it spawned). */
function groupRss(pgid: number): number {
  let total = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command's closing parenthesis: state ppid pgrp …
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgrp !== pgid) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      total += rss ? Number(rss[1]) * 1024 : 0;
    } catch {
      // the process ended while we looked
    }
  }
  return total;
}

export interface ExportRun {
  kind: string;
  rows: number;
  megabytes: number;
  seconds: number;
  rowsPerSecond: number;
  /** Peak RSS of the server during the export minus its RSS just before, MB. */
  peakRssGrowthMb: number;
  /** COPY … TO STDOUT CSV of the same rows through psql, seconds. */
  copySeconds: number;
  /** ours ÷ COPY. */
  ratio: number;
}

/** Streams one export over HTTP, counting rows and bytes, sampling the server's RSS every 100 ms. */
async function exportOver(baseUrl: string, cookie: string, url: string, pgid: number) {
  const before = groupRss(pgid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, groupRss(pgid))), 100);
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}${url}`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, groupRss(pgid));
  return {
    rows: lines - 1,
    bytes,
    seconds,
    growth: (peak - before) / 2 ** 20,
    expected: res.headers.get("x-export-rows"),
  };
}

/** psql's \copy of `select` to /dev/null: the reference. */
function copySeconds(url: string, select: string): number {
  const t0 = performance.now();
  const r = spawnSync(
    PSQL,
    [url, "-q", "-c", `\\copy (${select.replace(/\s+/g, " ")}) TO '/dev/null' WITH CSV HEADER`],
    {
      encoding: "utf8",
      timeout: 1_800_000,
    },
  );
  if (r.status !== 0) throw new Error(`psql: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

/** Loads the data set, starts the app, exports customers and the ledger; returns the figures. */
export async function benchExport(databaseUrl: string, customers: number) {
  const { PrismaClient } = await import("@/lib/generated/prisma/client");
  const { openAdapter } = await import("@/lib/db/adapter");
  const { benchDashboard } = await import("./dashboard");
  const { createStaff } = await import("@/lib/domain/staff");
  const { programReport } = await import("@/lib/staff/queries/reports");
  const { resolveRange } = await import("@/lib/staff/report-range");

  const opened = await openAdapter({ kind: "postgres", url: databaseUrl });
  const prisma: PrismaClient = new PrismaClient({ adapter: opened.factory });
  const email = "bench.owner@example.com";
  const password = "bench password 1234";
  let programId: string;
  const report: Record<string, number> = {};
  try {
    log(`loading ${customers.toLocaleString("en")} customers with 5 ledger entries each (bench/dashboard.ts)`);
    await benchDashboard(prisma, customers, 5, log);
    ({ id: programId } = await prisma.program.findFirstOrThrow({
      where: { name: "Dashboard bench" },
      orderBy: { createdAt: "desc" },
    }));
    await createStaff(prisma, { email, password, programId, role: "owner" });
    // The reports' queries, cold then warm, against a count of the program's ledger (the least a report can read).
    let t = performance.now();
    await prisma.$queryRawUnsafe(`SELECT count(*) FROM "LedgerEntry" WHERE "programId" = $1::uuid`, programId);
    report.ledgerCountMs = performance.now() - t;
    for (const name of ["30d", "365d"] as const) {
      const now = new Date();
      const range = resolveRange({ range: name }, "UTC", now);
      t = performance.now();
      const r = await programReport(prisma, programId, range, now);
      report[`report${name}Ms`] = performance.now() - t;
      log(`report ${name}: ${report[`report${name}Ms`]!.toFixed(0)} ms (liability ${r.current.liability})`);
    }
  } finally {
    await prisma.$disconnect();
    await opened.close();
  }

  const port = await freePort();
  const app = spawnChild("next start", path.join(ROOT, "node_modules/.bin/next"), ["start", "-p", String(port)], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOYALTY_JOBS: "off", NEXT_TELEMETRY_DISABLED: "1" },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${baseUrl}/signin`)).status < 500) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error(`next start did not answer:\n${app.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const cookie = await signIn(baseUrl, email, password);
  if (!cookie) throw new Error("the bench owner could not sign in");
  const pgid = app.proc.pid!;
  // Warm-up: the route's code loaded and compiled, the pool's connections open.
  await exportOver(baseUrl, cookie, `/api/staff/${programId}/exports/customers?q=zz`, pgid);

  const runs: ExportRun[] = [];
  const kinds = [
    {
      kind: "customers",
      copy: `SELECT c.id, c.email, u."firstName", u."lastName", u.phone, u."externalCustomerId", l.balance, t.name, c.language, c."createdAt"
             FROM "Customer" c JOIN "UserData" u ON u."customerId" = c.id JOIN "LoyaltyData" l ON l."customerId" = c.id
             JOIN "CustomerTier" ct ON ct."customerId" = c.id LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
             WHERE c."programId" = '${programId}' AND c."deletedAt" IS NULL ORDER BY c.email`,
    },
    {
      kind: "ledger",
      copy: `SELECT e.id, e."createdAt", e."customerId", c.email, e.type, e.points, e."balanceAfter", e.source, e.actor, e.reason, e."expiresAt"
             FROM "LedgerEntry" e JOIN "Customer" c ON c.id = e."customerId" WHERE e."programId" = '${programId}' ORDER BY e."createdAt", e.id`,
    },
  ];
  for (const { kind, copy } of kinds) {
    log(`exporting ${kind} over HTTP`);
    let r: Awaited<ReturnType<typeof exportOver>>;
    try {
      r = await exportOver(baseUrl, cookie, `/api/staff/${programId}/exports/${kind}`, pgid);
    } catch (err) {
      // One failed export (a timeout on a busy machine) still leaves the others' figures.
      log(`${kind}: failed: ${(err as Error).message} ${String((err as Error).cause ?? "")}`);
      continue;
    }
    if (String(r.rows) !== r.expected) throw new Error(`${kind}: ${r.rows} rows received, ${r.expected} announced`);
    log(`copying ${kind} with psql (reference)`);
    const reference = copySeconds(databaseUrl, copy);
    runs.push({
      kind,
      rows: r.rows,
      megabytes: r.bytes / 2 ** 20,
      seconds: r.seconds,
      rowsPerSecond: r.rows / r.seconds,
      peakRssGrowthMb: r.growth,
      copySeconds: reference,
      ratio: r.seconds / reference,
    });
    log(`${kind}: ${r.rows} rows in ${r.seconds.toFixed(1)} s, peak RSS growth ${r.growth.toFixed(1)} MB`);
  }
  await app.stop();
  return { customers, runs, report };
}

async function main() {
  installGuards(Number(process.env.BENCH_DEADLINE_SECONDS ?? 2400));
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) throw new Error("no production build: run `npm run build`");
  const database = await benchDatabase();
  log(`database: ${database.describe}`);
  const migrated = spawnSync("npm", ["run", "--silent", "db:migrate"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: database.url },
    encoding: "utf8",
  });
  if (migrated.status !== 0) throw new Error(`db:migrate failed: ${migrated.stderr}`);
  const result = await benchExport(database.url, Number(process.env.BENCH_EXPORT_CUSTOMERS ?? 1_000_000));
  console.log(`\nCSV exports through the route — ${result.customers.toLocaleString("en")} customers (PostgreSQL)`);
  for (const r of result.runs) {
    const verdict = r.peakRssGrowthMb <= 100 ? "PASS" : "FAIL";
    console.log(
      `  ${r.kind.padEnd(10)} ${r.rows.toLocaleString("en").padStart(10)} rows  ${r.megabytes.toFixed(0).padStart(5)} MB  ` +
        `${r.seconds.toFixed(1).padStart(6)} s  ${Math.round(r.rowsPerSecond).toLocaleString("en").padStart(8)} rows/s  ` +
        `COPY ${r.copySeconds.toFixed(1)} s (×${r.ratio.toFixed(1)})  peak RSS growth ${r.peakRssGrowthMb.toFixed(1)} MB ${verdict} (≤ 100 MB)`,
    );
  }
  const rep = result.report;
  console.log(
    `  reports: 30 days ${rep.report30dMs!.toFixed(0)} ms, 365 days ${rep.report365dMs!.toFixed(0)} ms; ` +
      `count of the program's ledger ${rep.ledgerCountMs!.toFixed(0)} ms (×${(rep.report30dMs! / rep.ledgerCountMs!).toFixed(1)} for 30 days)`,
  );
  console.log(JSON.stringify(result));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main()
    .catch((err) => {
      console.error(`\nbench failed: ${(err as Error)?.stack ?? err}`);
      process.exitCode = 1;
    })
    .finally(async () => {
      await teardown();
      process.exit();
    });
}
