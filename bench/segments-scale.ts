/**
 * Segments and lifecycle at 1,000,000 customers (issue 24), in-process through the domain functions the routes call,
 * on PostgreSQL, on a program loaded like `bench/dashboard.ts` (BENCH_DASHBOARD-style: SQL inserts, tiers, user data),
 * plus what segments read: a declared `score` attribute, birthdates over 20,000 days, purchase events.
 *
 *   node --no-warnings --import tsx bench/segments-scale.ts <postgres url of a migrated database>
 *
 * The program is loaded once and reused (found by its name, "Segments scale bench <customers>"), so the rows can be
 * re-run without paying the load again. BENCH_SCALE_CUSTOMERS (1,000,000) customers, ~1.3 purchase events each over
 * 400 days. Rows, each beside a reference in the same run:
 * - preview of a 3-condition segment (tier = Gold, score ≥ 50, ≥ 1 purchase in P90D): 20 calls of `previewSegment`,
 *   p50/p99; reference: a bare `count(*)` of the program's customers. Target p99 ≤ 1 s.
 * - recompute of every segment (5 segments, one of them time-relative with emitEvents): `recomputeSegment` of each
 *   in its transaction, the first time (everyone enters) and again (the steady state), and the due pass
 *   (`recomputeDueSegments` one day later: only the customers whose next flip has come). Target ≤ 60 s for all.
 * - birthday sweep: an active birthday campaign, `fireDueLifecycle` at one minute past a local midnight (the day's
 *   birthdays, ~1/365 of the customers), in batches with the set earn. References: the next day's sweep in the same
 *   batches with one balance change per birthday (BENCH_SCALE_REFERENCE=0 skips it), one transaction per birthday
 *   (BENCH_SCALE_SINGLE=1), the day's birthdays read by index. Target ≤ 30 s.
 * Prints JSON.
 */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { createProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";
import { putCustomerAttribute } from "@/lib/domain/customer-attributes";
import { activateCampaign, createCampaign, putEventType } from "@/lib/domain/campaigns/store";
import { fireDueLifecycle } from "@/lib/domain/campaigns/lifecycle";
import { previewSegment, createSegment } from "@/lib/domain/segments/store";
import { recomputeDueSegments, recomputeSegment } from "@/lib/domain/segments/membership";

const log = (...a: unknown[]) => console.error(`[scale ${new Date().toISOString().slice(11, 19)}]`, ...a);

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

const quantiles = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return { p50: Math.round(at(0.5)), p99: Math.round(at(0.99)), runs: s.length };
};

/** The program of `customers` customers, loaded once (found by name when it exists). */
async function loadProgram(prisma: PrismaClient, customers: number, now: Date) {
  // BENCH_SCALE_EVENTS=0: no purchase events (enough for the birthday sweep; a program of its own name, so the
  // segment rows never run on it by mistake).
  const events = process.env.BENCH_SCALE_EVENTS !== "0";
  const name = `Segments scale bench ${customers}${events ? "" : " (no events)"}`;
  const found = await prisma.program.findFirst({ where: { name }, select: { id: true } });
  if (found) {
    log(`reusing program ${found.id} (${customers} customers)`);
    return { programId: found.id, loadSeconds: 0 };
  }
  const t0 = Date.now();
  const { programId } = await createProgram(prisma, { name });
  const tiers: string[] = [];
  for (const [tier, requiredPoints] of [
    ["Bronze", 0],
    ["Silver", 1000],
    ["Gold", 5000],
  ] as const)
    tiers.push((await createTier(prisma, { programId, name: tier, requiredPoints, factor: 1 })).tierId);
  await prisma.$transaction(async (tx) => {
    await putCustomerAttribute(tx, { programId, name: "score", type: "number", now });
    await putEventType(tx, {
      programId,
      type: "purchase",
      attributes: { total: { type: "number", required: true } },
      now,
    });
  });
  const run = async (what: string, text: string, ...values: unknown[]) => {
    await prisma.$executeRawUnsafe(text, ...values);
    log(`  ${what} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  };
  await run(
    "customers",
    `INSERT INTO "Customer" ("programId", email, "customAttributes", "createdAt", "updatedAt")
     SELECT $1::uuid, 'c' || i || '@scale.example.com', jsonb_build_object('score', i % 100),
            $2::timestamptz - (i % 1200) * interval '1 day' - (i % 1440) * interval '1 minute', $2::timestamptz
     FROM generate_series(1, ${customers}) AS i`,
    programId,
    now.toISOString(),
  );
  await run(
    "user data",
    `INSERT INTO "UserData" ("customerId", "programId", birthdate, "updatedAt")
     SELECT id, "programId", to_char(date '1950-01-01' + (abs(hashtext(id::text)) % 20000), 'YYYY-MM-DD'), now()
     FROM "Customer" WHERE "programId" = $1::uuid`,
    programId,
  );
  await run(
    "loyalty data",
    `INSERT INTO "LoyaltyData" ("programId", "customerId", "loyaltyCustomerId", balance, "memberSince", "updatedAt")
     SELECT "programId", id, replace(id::text, '-', ''), abs(hashtext(id::text)) % 2000, "createdAt", now()
     FROM "Customer" WHERE "programId" = $1::uuid`,
    programId,
  );
  await run(
    "tiers",
    `INSERT INTO "CustomerTier" ("programId", "customerId", "currentTierId", "currentTierPoints", "recalculationDate")
     SELECT "programId", id, (ARRAY[$2::uuid, $3::uuid, $4::uuid])[1 + abs(hashtext(id::text || 't')) % 3], 0,
            $5::timestamptz + interval '1 year'
     FROM "Customer" WHERE "programId" = $1::uuid`,
    programId,
    ...tiers,
    now.toISOString(),
  );
  // Purchases: 0–2 per customer (1.33 on average), spread over the last 400 days.
  if (events)
    await run(
      "purchase events",
      `INSERT INTO "CustomerEvent" ("programId", "customerId", type, "occurredAt", attributes, outcome, "createdAt")
     SELECT $1::uuid, c.id, 'purchase', t.at, jsonb_build_object('total', 10 + abs(hashtext(c.id::text || n)) % 200),
            '{}', t.at
     FROM "Customer" c CROSS JOIN generate_series(1, 2) AS n
       CROSS JOIN LATERAL (SELECT $2::timestamptz - (abs(hashtext(c.id::text || n || 'd')) % 576000) * interval '1 minute' AS at) t
     WHERE c."programId" = $1::uuid AND abs(hashtext(c.id::text || n || 'k')) % 3 <> 0`,
      programId,
      now.toISOString(),
    );
  // As autovacuum does for insert-only tables (visibility map: the event aggregates are index-only scans).
  for (const table of ["Customer", "LoyaltyData", "CustomerTier", "UserData", "CustomerEvent"])
    await run(`vacuum ${table}`, `VACUUM (ANALYZE) "${table}"`);
  return { programId, loadSeconds: (Date.now() - t0) / 1000 };
}

export async function benchSegmentsScale(prisma: PrismaClient, customers: number) {
  const now = new Date();
  const { programId, loadSeconds } = await loadProgram(prisma, customers, now);
  const result: Record<string, unknown> = { customers, loadSeconds };
  if (process.env.BENCH_SCALE_LOAD_ONLY) return result;
  const rows = (process.env.BENCH_SCALE_ROWS ?? "preview,recompute,birthdays").split(",");
  // Preview of a 3-condition segment.
  const filter = {
    all: [
      { attr: "customer.tier", op: "eq", value: "Gold" },
      { attr: "customer.score", op: "gte", value: 50 },
      { attr: "events.purchase.count", window: "P90D", op: "gte", value: 1 },
    ],
  };

  if (rows.includes("preview")) {
    const previews: number[] = [];
    const counts: number[] = [];
    let count = 0;
    for (let i = 0; i < 22; i++) {
      const p = await timed(() => previewSegment(prisma, programId, filter, now));
      const c = await timed(() =>
        prisma.$queryRawUnsafe(`SELECT count(*) FROM "Customer" WHERE "programId" = $1::uuid`, programId),
      );
      if (i < 2) continue; // warm-up
      previews.push(p.ms);
      counts.push(c.ms);
      count = p.value.count;
    }
    result.preview = { count, ...quantiles(previews), bareCount: quantiles(counts), target: "p99 ≤ 1000 ms" };
    log(`preview: ${JSON.stringify(result.preview)}`);
  }
  if (rows.includes("recompute")) {
    // Every segment of the program: five filters, created once (their baseline), then recomputed.
    const filters: Record<string, unknown> = {
      "gold, score ≥ 50, purchase in 90 days": filter,
      "no purchase in 90 days": { attr: "events.purchase.count", window: "P90D", op: "eq", value: 0 },
      "members for a year": { attr: "customer.memberDays", op: "gte", value: 365 },
      "spent 200 in a year": { attr: "events.purchase.sum.total", window: "P365D", op: "gte", value: 200 },
      "silver or gold, balance ≥ 500": {
        all: [
          { attr: "customer.tier", op: "in", value: ["Silver", "Gold"] },
          { attr: "customer.balance", op: "gte", value: 500 },
        ],
      },
    };
    const existing = await prisma.segment.findMany({ where: { programId }, select: { id: true, name: true } });
    const ids: string[] = [];
    const created = await timed(async () => {
      for (const [name, f] of Object.entries(filters)) {
        const had = existing.find((s) => s.name === name);
        if (had) ids.push(had.id);
        else
          ids.push(
            (
              await prisma.$transaction(
                (tx) => createSegment(tx, { programId, name, filter: f, emitEvents: true, now }),
                { timeout: 600_000 },
              )
            ).id,
          );
      }
    });
    const recomputeAll = async (at: Date) => {
      const per: number[] = [];
      let changes = 0;
      for (const id of ids) {
        const t = await timed(() =>
          prisma.$transaction((tx) => recomputeSegment(tx, id, at), { timeout: 600_000, maxWait: 60_000 }),
        );
        per.push(Math.round(t.ms));
        changes += (t.value?.entered ?? 0) + (t.value?.left ?? 0);
      }
      return { ms: per.reduce((a, b) => a + b, 0), per, changes };
    };
    // The program clock only moves forward: an hour after the segments' latest pass (a re-run continues from there).
    const [stamp] = await prisma.$queryRawUnsafe<{ at: Date | null }[]>(
      `SELECT max(GREATEST("checkedAt", "recomputedAt")) AS at FROM "Segment" WHERE "programId" = $1::uuid`,
      programId,
    );
    const latest = stamp?.at ? new Date(stamp.at) : now;
    const later = new Date(Math.max(now.getTime(), latest.getTime()) + 3_600_000);
    const full = await recomputeAll(later);
    const { rows: memberRows } = {
      rows: await prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM "SegmentMembership" WHERE "programId" = $1::uuid AND member`,
        programId,
      ),
    };
    // The due pass a day later: only customers whose next flip came (time) are looked at again.
    const dayLater = new Date(later.getTime() + 86_400_000);
    const due = await timed(() =>
      recomputeDueSegments((work) => prisma.$transaction(work, { timeout: 600_000, maxWait: 60_000 }), dayLater, 60, {
        programId,
        full: false,
      }),
    );
    result.recompute = {
      segments: ids.length,
      creationMs: Math.round(created.ms),
      allMs: full.ms,
      perSegmentMs: full.per,
      changes: full.changes,
      members: memberRows[0]!.n,
      duePassNextDayMs: Math.round(due.ms),
      duePass: due.value,
      target: "≤ 60000 ms for every segment",
    };
    log(`recompute: ${JSON.stringify(result.recompute)}`);
  }
  if (!rows.includes("birthdays")) return result;

  // The birthday sweep at one minute past a midnight: a fresh day each run (the program's sweeps move forward).
  let campaign = await prisma.campaign.findFirst({
    where: { programId, status: "active" },
    select: { id: true },
  });
  if (!campaign)
    campaign = await prisma.$transaction(async (tx) => {
      const c = await createCampaign(tx, {
        programId,
        body: {
          name: "Happy birthday",
          trigger: { lifecycle: "birthday" },
          conditions: null,
          effects: [{ type: "award_points", points: 100, tierFactor: false }],
          limits: {},
          schedule: {},
          priority: 0,
          stacking: "stack",
        },
        now,
      });
      await activateCampaign(tx, { programId, campaignId: c.id, now });
      return c;
    });
  // One day's birthdays per sweep, the day after the last swept one: batched (LIFECYCLE_BATCH per transaction) with
  // the set earn (one statement for a batch's earns), then the next day batched with one balance change per birthday
  // (the reference: the same batches before the set earn), and, with BENCH_SCALE_SINGLE=1, the day after one
  // transaction per birthday (before batching).
  const sweepDay = async (batch: number | undefined, setEarn = true) => {
    const [mark] = await prisma.$queryRawUnsafe<{ sweptTo: Date | null }[]>(
      `SELECT max("sweptTo") AS "sweptTo" FROM "LifecycleSweep" WHERE "programId" = $1::uuid`,
      programId,
    );
    const from = mark?.sweptTo ? new Date(mark.sweptTo) : now;
    const midnight = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + 1));
    // The watermark just before that midnight: one day's birthdays.
    await prisma.$executeRawUnsafe(
      `INSERT INTO "LifecycleSweep" ("programId", "sweptTo") VALUES ($1::uuid, $2::timestamptz)
       ON CONFLICT ("programId") DO UPDATE SET "sweptTo" = EXCLUDED."sweptTo"`,
      programId,
      new Date(midnight.getTime() - 60_000).toISOString(),
    );
    const md = midnight.toISOString().slice(5, 10);
    const indexed = await timed(() =>
      prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM "UserData" WHERE "programId" = $1::uuid AND birthday = $2`,
        programId,
        md,
      ),
    );
    const sweep = await timed(() =>
      fireDueLifecycle(prisma, { programId, now: new Date(midnight.getTime() + 60_000), batch, setEarn }),
    );
    const again = await timed(() =>
      fireDueLifecycle(prisma, { programId, now: new Date(midnight.getTime() + 120_000), batch, setEarn }),
    );
    return {
      day: midnight.toISOString().slice(0, 10),
      batch: batch ?? "default",
      setEarn,
      birthdaysByIndex: indexed.value[0]!.n,
      indexMs: Math.round(indexed.ms),
      fired: sweep.value.fired,
      sweepMs: Math.round(sweep.ms),
      perBirthdayMs: Math.round((sweep.ms / Math.max(1, sweep.value.fired)) * 10) / 10,
      idleSweepMs: Math.round(again.ms),
    };
  };
  const batched = await sweepDay(undefined);
  log(`birthdays, batched, set earn: ${JSON.stringify(batched)}`);
  const reference = process.env.BENCH_SCALE_REFERENCE === "0" ? null : await sweepDay(undefined, false);
  if (reference) log(`birthdays, batched, one balance change each: ${JSON.stringify(reference)}`);
  const single = process.env.BENCH_SCALE_SINGLE === "1" ? await sweepDay(1, false) : null;
  if (single) log(`birthdays, one per transaction: ${JSON.stringify(single)}`);
  result.birthdays = { batched, reference, single, target: "≤ 30000 ms" };
  return result;
}

if (process.argv[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  const url = process.argv[2];
  if (!url?.startsWith("postgres")) throw new Error("usage: bench/segments-scale.ts <postgres url>");
  const { PrismaClient } = await import("@/lib/generated/prisma/client");
  const { openAdapter } = await import("@/lib/db/adapter");
  const opened = await openAdapter({ kind: "postgres", url });
  const prisma = new PrismaClient({ adapter: opened.factory });
  try {
    const started = Date.now();
    const result = await benchSegmentsScale(prisma, Number(process.env.BENCH_SCALE_CUSTOMERS ?? 1_000_000));
    const [load] = await prisma.$queryRawUnsafe<{ l: string }[]>(`SELECT 1 AS l`);
    void load;
    console.log(JSON.stringify({ ...result, seconds: Math.round((Date.now() - started) / 1000) }, null, 2));
  } finally {
    await prisma.$disconnect();
    await opened.close();
  }
}
