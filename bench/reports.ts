/**
 * Reports at scale (issue 27): the points accounting report and the Overview on a program of
 * BENCH_REPORTS_CUSTOMERS customers (1,000,000 by default) and BENCH_REPORTS_ENTRIES ledger entries (10,000,000),
 * spread over two years of the program's days, on PostgreSQL; each timed in-process through the function its page
 * calls, first viewer (no cache: `programReport`, not `cachedReport`), against a primary-key lookup through the same
 * client as the baseline of the run.
 *
 * The data is loaded once into a database the bench keeps (BENCH_REPORTS_KEEP=1; its name is printed) so a later run
 * can time again without loading (BENCH_REPORTS_DATABASE=<url of it>). The first rollup of the whole history (what
 * the job does once after the upgrade) is timed too.
 *
 * Today as a first viewer finds it: the job rolls the day so far up every TODAY_EVERY_MINUTES of the program clock,
 * through its time less ROLLUP_GRACE_MINUTES (lib/domain/accounting.ts `rollUpToday`), so the bench rolls up as the job
 * did at its latest before the viewer (TODAY_EVERY_MINUTES + one jobs tick earlier) and each report computes the
 * ledger's last 21 minutes at view time. The same reports with today from the ledger alone are the run's reference
 * (`overviewLedgerToday`), and the two must be equal.
 *
 * Run: `BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:55432/postgres node --no-warnings --import tsx
 * bench/reports.ts` (or BENCH_REPORTS_DATABASE=… to reuse a loaded one). Prints every timing as JSON.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { createProgram } from "@/lib/domain/programs";
import { pointsAccounting, rollUpPoints, TODAY_EVERY_MINUTES } from "@/lib/domain/accounting";
import { programReport } from "@/lib/staff/queries/reports";
import { resolveRange } from "@/lib/staff/report-range";

const ROOT = path.resolve(import.meta.dirname, "..");
const log = (...a: unknown[]) => console.error(...a);

interface Timing {
  /** The call before the samples (a new connection's plans, the first read of the data): reported, not sampled. */
  first: number;
  p50: number;
  p99: number;
  max: number;
  runs: number;
}

async function time(runs: number, fn: (i: number) => Promise<unknown>): Promise<Timing> {
  const w0 = performance.now();
  await fn(-1); // one warm-up: plans
  const first = performance.now() - w0;
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { first, p50: at(0.5), p99: at(0.99), max: samples.at(-1)!, runs };
}

/**
 * Runs `fn` on one connection of its own with the secondary indexes of `tables` dropped and rebuilt after it, and the
 * foreign-key triggers off (`session_replication_role = replica`; the generated rows are consistent by construction):
 * a bulk load without them is several times faster than maintaining six random-order B-trees row by row (10,000,000
 * ledger entries: about an hour on the shared server otherwise). Primary keys stay.
 */
async function bulk(url: string, tables: string[], fn: (c: pg.Client) => Promise<void>) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`SET session_replication_role = replica; SET maintenance_work_mem = '256MB'`);
    const { rows } = await c.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY($1) AND indexname NOT LIKE '%\\_pkey'`,
      [tables],
    );
    for (const r of rows) await c.query(`DROP INDEX "${r.indexname}"`);
    try {
      await fn(c);
    } finally {
      for (const r of rows) await c.query(r.indexdef);
    }
  } finally {
    await c.end();
  }
}

/**
 * Customers joined over two years; entries spread over their lifetime up to "now": earns, redeems, expiries,
 * adjustments; lots, tiers, a few erasures. Each step is skipped when its rows are there, so a load cut short resumes.
 */
async function load(prisma: PrismaClient, url: string, customers: number, entries: number, now: Date): Promise<string> {
  const existing = await prisma.program.findFirst({ where: { name: "Reports bench" } });
  const programId = existing?.id ?? (await createProgram(prisma, { name: "Reports bench" })).programId;
  await prisma.program.update({
    where: { id: programId },
    data: { timeZone: "Europe/Madrid", currency: "EUR", pointValue: "0.01" },
  });
  const t0 = Date.now();
  const at = now.toISOString();
  const has = async (table: string) =>
    (
      (await prisma.$queryRawUnsafe(
        `SELECT EXISTS (SELECT 1 FROM "${table}" WHERE "programId" = $1::uuid) AS x`,
        programId,
      )) as [{ x: boolean }]
    )[0].x;
  const step = async (table: string, tables: string[], text: string) => {
    if (await has(table)) return log(`  ${table}: already loaded`);
    await bulk(url, tables, (c) => c.query(text, [programId, at]).then(() => undefined));
    log(`  ${table} loaded (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  };
  await step(
    "Customer",
    ["Customer"],
    // The referral code given (unique by construction): its default, referral_code(), checks each new code against
    // the table, a sequential scan per row while the bulk load has the referralCode index dropped (quadratic: 6 MB in
    // 10 minutes).
    `INSERT INTO "Customer" ("programId", email, "referralCode", "createdAt", "updatedAt")
     SELECT $1::uuid, 'c' || i || '@example.com', 'B' || i, $2::timestamptz - (i % 730) * interval '1 day' - (i % 1440) * interval '1 minute', $2::timestamptz
     FROM generate_series(1, ${customers}) AS i`,
  );
  await step(
    "LoyaltyData",
    ["LoyaltyData"],
    `INSERT INTO "LoyaltyData" ("programId", "customerId", "loyaltyCustomerId", balance, "updatedAt")
     SELECT "programId", id, replace(id::text, '-', ''), 0, $2::timestamptz FROM "Customer" WHERE "programId" = $1::uuid`,
  );
  const per = Math.max(1, Math.round(entries / customers));
  // Each customer's entries at random instants between their joining and now; 70 % earns, 18 % redeems, 6 %
  // expiries, 6 % adjustments (either sign). Inserted in time order, as a live ledger is appended: a day's entries
  // are then together in the table, as in production (generated customer by customer, every day's entries were
  // spread over the whole table, and reading today's cost a random page read per entry).
  await step(
    "LedgerEntry",
    ["LedgerEntry"],
    `INSERT INTO "LedgerEntry" ("programId", "customerId", type, points, "balanceAfter", source, actor, "createdAt")
     SELECT $1::uuid, c.id, k.type, k.points, 0, 'api', 'bench', c."createdAt" + (($2::timestamptz - c."createdAt") * r.f)
     FROM "Customer" c CROSS JOIN generate_series(1, ${per}) AS n
       CROSS JOIN LATERAL (SELECT abs(hashtext(c.id::text || n)) % 100 AS h, (abs(hashtext(n || c.id::text)) % 1000000) / 1000000.0 AS f) r
       CROSS JOIN LATERAL (SELECT CASE WHEN r.h < 70 THEN 'earn' WHEN r.h < 88 THEN 'redeem' WHEN r.h < 94 THEN 'expire' ELSE 'adjust' END AS type,
                                  CASE WHEN r.h < 70 THEN 10 + r.h WHEN r.h < 94 THEN -(5 + r.h % 20) WHEN r.h % 2 = 0 THEN 25 ELSE -25 END AS points) k
     WHERE c."programId" = $1::uuid
     ORDER BY 8`,
  );
  // Lots of the earns of the last 12 months (what "expiring in the next 30 days" reads), half spent: 12 months of
  // life. Older lots are left out: expired by the job they hold nothing, and the Overview reads the partial index of
  // lots with points left (leaving them out saves the load ~4,000,000 rows).
  await step(
    "PointLot",
    ["PointLot"],
    `INSERT INTO "PointLot" ("programId", "customerId", "ledgerEntryId", remaining, "createdAt", "expiresAt")
     SELECT "programId", "customerId", id, points / 2, "createdAt", "createdAt" + interval '12 months'
     FROM "LedgerEntry" WHERE "programId" = $1::uuid AND type = 'earn' AND "createdAt" > $2::timestamptz - interval '12 months'`,
  );
  // Four tiers, a tier row per customer (a third with none), and one customer in 2,000 erased.
  await step(
    "Tier",
    [],
    `INSERT INTO "Tier" ("programId", name, "requiredPoints")
     SELECT $1::uuid, n, r FROM (VALUES ('Bronze', 100), ('Silver', 500), ('Gold', 2000), ('Platinum', 5000)) v(n, r)
     WHERE $2::text IS NOT NULL`,
  );
  await step(
    "CustomerTier",
    ["CustomerTier"],
    `INSERT INTO "CustomerTier" ("programId", "customerId", "currentTierId")
     SELECT c."programId", c.id, t.id FROM "Customer" c
       LEFT JOIN "Tier" t ON t."programId" = c."programId" AND t.name = (ARRAY['Bronze', 'Bronze', 'Silver', 'Silver', 'Gold', 'Platinum'])[1 + abs(hashtext(c.id::text)) % 9]
     WHERE c."programId" = $1::uuid AND $2::text IS NOT NULL`,
  );
  const [{ erased }] = (await prisma.$queryRawUnsafe(
    `SELECT count(*)::int AS erased FROM "Customer" WHERE "programId" = $1::uuid AND "deletedAt" IS NOT NULL`,
    programId,
  )) as [{ erased: number }];
  if (erased === 0) {
    await prisma.$executeRawUnsafe(
      `UPDATE "Customer" SET "deletedAt" = "createdAt" + ($2::timestamptz - "createdAt") / 2
       WHERE "programId" = $1::uuid AND abs(hashtext(id::text || 'erase')) % 2000 = 0`,
      programId,
      at,
    );
    // Balances as the ledger says (the liability reads them).
    await prisma.$executeRawUnsafe(
      `UPDATE "LoyaltyData" l SET balance = s.b FROM (
         SELECT "customerId", greatest(0, sum(points))::int AS b FROM "LedgerEntry" WHERE "programId" = $1::uuid GROUP BY 1) s
       WHERE l."customerId" = s."customerId"`,
      programId,
    );
    // As autovacuum would leave a loaded table (visibility map: index-only reads).
    await prisma.$executeRawUnsafe(`VACUUM ANALYZE`);
  }
  log(`  loaded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return programId;
}

async function main() {
  const customers = Number(process.env.BENCH_REPORTS_CUSTOMERS ?? 1_000_000);
  const entries = Number(process.env.BENCH_REPORTS_ENTRIES ?? 10_000_000);
  const runs = Number(process.env.BENCH_REPORTS_RUNS ?? 20);
  // load: create, load and stop; rollup: roll up what is not rolled up yet and stop (both niced, outside the lock);
  // all (the default): roll up, then time.
  const phase = process.env.BENCH_REPORTS_PHASE ?? "all";
  let url = process.env.BENCH_REPORTS_DATABASE;
  const reuse = !!url;
  if (!url) {
    const admin = process.env.BENCH_DATABASE_URL;
    if (!admin?.startsWith("postgres")) throw new Error("set BENCH_DATABASE_URL (or BENCH_REPORTS_DATABASE)");
    const name = process.env.BENCH_REPORTS_NAME ?? `bench_reports_${randomBytes(4).toString("hex")}`;
    if (!/^[a-z0-9_]+$/.test(name)) throw new Error("BENCH_REPORTS_NAME: lower-case letters, digits and _ only");
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    const u = new URL(admin);
    u.pathname = `/${name}`;
    url = u.toString();
    log(`database ${url} (kept: drop it by hand)`);
    const migrated = spawnSync("npm", ["run", "--silent", "db:migrate"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url },
      encoding: "utf8",
    });
    if (migrated.status !== 0) throw new Error(`db:migrate failed: ${migrated.stderr}`);
  }
  const { PrismaClient } = await import("@/lib/generated/prisma/client");
  const { openAdapter } = await import("@/lib/db/adapter");
  const opened = await openAdapter({ kind: "postgres", url });
  const prisma = new PrismaClient({ adapter: opened.factory });
  const now = new Date(process.env.BENCH_REPORTS_NOW ?? "2026-11-26T12:00:00Z");
  try {
    const t0 = Date.now();
    const programId =
      reuse && phase !== "load"
        ? (await prisma.program.findFirstOrThrow({ where: { name: "Reports bench" } })).id
        : await load(prisma, url, customers, entries, now);
    const loadSeconds = (Date.now() - t0) / 1000;
    const [{ n }] = (await prisma.$queryRawUnsafe(
      `SELECT count(*)::int AS n FROM "LedgerEntry" WHERE "programId" = $1::uuid`,
      programId,
    )) as [{ n: number }];
    const [{ m }] = (await prisma.$queryRawUnsafe(
      `SELECT count(*)::int AS m FROM "Customer" WHERE "programId" = $1::uuid`,
      programId,
    )) as [{ m: number }];
    log(`  program ${programId}: ${m} customers, ${n} entries`);
    if (phase === "load") return;
    const sample = (await prisma.$queryRawUnsafe(
      `SELECT id FROM "Customer" WHERE "programId" = $1::uuid LIMIT 500`,
      programId,
    )) as { id: string }[];
    const baseline = await time(200, (i) =>
      prisma.$queryRawUnsafe(`SELECT id FROM "Customer" WHERE id = $1::uuid`, sample[Math.abs(i) % sample.length]!.id),
    );

    // The accounting report before any rollup: every day from the ledger (what the first viewer after the upgrade
    // waits for, once).
    const range90 = resolveRange({ range: "90d" }, "Europe/Madrid", now);
    const unrolled = reuse ? null : await time(1, () => pointsAccounting(prisma, programId, range90.from, range90.to));
    // The job last ran this long before the viewer (the worst case: the day so far is rolled up again once the
    // program clock is TODAY_EVERY_MINUTES past it, checked every tick of the jobs, a minute by default), so the
    // report computes from the ledger what was written in the last TODAY_EVERY_MINUTES + 1 + ROLLUP_GRACE_MINUTES
    // minutes (the day so far runs through the job's time less the grace): 21 minutes of today's ledger.
    const rolledAt = new Date(now.getTime() - (TODAY_EVERY_MINUTES + 1) * 60_000);
    const forgetToday = () =>
      prisma.$executeRawUnsafe(`DELETE FROM "PointsToday" WHERE "programId" = $1::uuid`, programId);
    await forgetToday();
    const r0 = Date.now();
    const rolled = await rollUpPoints(prisma, programId, rolledAt);
    const rollupSeconds = (Date.now() - r0) / 1000;
    log(
      `  rollup: ${rolled.days} days through ${rolled.through}, today as of ${rolled.today?.toISOString()}, in ${rollupSeconds.toFixed(1)} s`,
    );
    if (phase === "rollup") return;
    const loadBefore = loadavg().map((x) => Number(x.toFixed(2)));
    // Timed as the pages' first viewer at `now` (today, 13:00 in Madrid: its day so far rolled up as of 12:39, the
    // 21 minutes since read from the ledger).
    const accounting90 = await time(runs, () => pointsAccounting(prisma, programId, range90.from, range90.to));
    log(`  accounting 90d: p50 ${accounting90.p50.toFixed(0)} ms, p99 ${accounting90.p99.toFixed(0)} ms`);
    const overview: Record<string, Timing> = {};
    for (const r of ["7d", "30d", "365d"] as const) {
      const range = resolveRange({ range: r }, "Europe/Madrid", now);
      overview[r] = await time(runs, () => programReport(prisma, programId, range, now));
      log(`  overview ${r}: p50 ${overview[r]!.p50.toFixed(0)} ms, p99 ${overview[r]!.p99.toFixed(0)} ms`);
    }
    // The reference of the run: the same reports with today computed from the ledger alone (no day so far: what
    // they cost before it existed, or when its job is behind).
    const withToday = await programReport(prisma, programId, resolveRange({ range: "7d" }, "Europe/Madrid", now), now);
    await forgetToday();
    // Exact: the same report (the day so far plus the 21 minutes since it = today from the ledger).
    const ledgerToday = await programReport(
      prisma,
      programId,
      resolveRange({ range: "7d" }, "Europe/Madrid", now),
      now,
    );
    assert.deepEqual(withToday, ledgerToday, "the report with the day so far is the report with today from the ledger");
    const overviewLedgerToday: Record<string, Timing> = {};
    for (const r of ["7d", "365d"] as const) {
      const range = resolveRange({ range: r }, "Europe/Madrid", now);
      overviewLedgerToday[r] = await time(runs, () => programReport(prisma, programId, range, now));
      log(
        `  overview ${r}, today from the ledger: p50 ${overviewLedgerToday[r]!.p50.toFixed(0)} ms, p99 ${overviewLedgerToday[r]!.p99.toFixed(0)} ms`,
      );
    }
    const loadAfter = loadavg().map((x) => Number(x.toFixed(2)));
    // The day so far alone (the job's work every TODAY_EVERY_MINUTES of the clock: the closed days are current).
    const t1 = Date.now();
    await rollUpPoints(prisma, programId, rolledAt);
    const todayRollupMs = Date.now() - t1;
    // One more day's rollup (the job's daily work), then put the rollup back where it was so a rerun times the same.
    const r1 = Date.now();
    await rollUpPoints(prisma, programId, new Date(now.getTime() + 86_400_000));
    const dailyRollupMs = Date.now() - r1;
    if (rolled.through) {
      await prisma.$executeRawUnsafe(
        `DELETE FROM "PointsDay" WHERE "programId" = $1::uuid AND day > $2::date`,
        programId,
        rolled.through,
      );
      await prisma.$executeRawUnsafe(
        `UPDATE "PointsRollup" SET "throughDay" = $2::date WHERE "programId" = $1::uuid`,
        programId,
        rolled.through,
      );
      await forgetToday();
      await rollUpPoints(prisma, programId, rolledAt);
    }
    console.log(
      JSON.stringify(
        {
          customers: m,
          entries: n,
          loadavg: { before: loadBefore, after: loadAfter },
          loadSeconds,
          baseline,
          accounting90Unrolled: unrolled,
          firstRollup: { seconds: rollupSeconds, days: rolled.days },
          todayRollup: { asOf: rolled.today, ms: todayRollupMs },
          dailyRollupMs,
          accounting90,
          overview,
          overviewLedgerToday,
        },
        null,
        2,
      ),
    );
  } finally {
    await prisma.$disconnect();
    await opened.close();
  }
}

await main();
