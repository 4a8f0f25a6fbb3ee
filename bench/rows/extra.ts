/**
 * Ours-only rows with an invariant checked afterwards (increase without a key against the bare server, hot spot,
 * coupon import and assignment, reward redemption) and the 1,000-item batch.
 */
import { rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CONNECTIONS, TARGETS, WARMUP } from "../config";
import { clean, type Context } from "../context";
import { log } from "../lifecycle";
import { alternate, ratioOf, measure } from "../load";
import { cli } from "../servers";
import { brokenBalances } from "../setup";

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

export async function extraRows(ctx: Context) {
  const { sql, work, dbEnv } = ctx;
  const { programId } = work.program;
  const bare = await ctx.baseline();
  const [plain, plainBare] = await alternate(
    "increase without a key",
    [ctx.ours, bare],
    work.increase(false),
    CONNECTIONS,
    10,
    WARMUP,
  );
  ctx.add({
    family: "extra",
    name: "POST …/balance/increase, no Idempotency-Key",
    load: String(CONNECTIONS),
    ours: plain!,
    refs: [{ label: "bare node:http + pg", figures: plainBare! }],
    ratio: ratioOf(plain!, plainBare!),
    ratioOf: "bare",
  });

  log("hot spot: increases on 10 customers (ours)");
  const hotEmails = work.emails.slice(0, 10);
  const hot = await measure(ctx.ours.baseUrl, work.increase(false, hotEmails), CONNECTIONS, 10, WARMUP);
  const broken = await brokenBalances(sql, programId);
  ctx.add({
    family: "extra",
    name: "hot spot: increases on 10 customers",
    load: String(CONNECTIONS),
    ours: hot,
    refs: [],
    target: "balance = Σ ledger = Σ lots",
    pass: broken.length === 0 && clean(hot),
  });

  // A CSV import through the CLI, then assignments from that pool to random customers, then redemptions by the
  // hot-spot customers (who now hold thousands of points); afterwards no code may have two owners and
  // stock + redemptions must equal the start.
  const codeCount = 100_000;
  const tag = Math.random().toString(36).slice(2, 7);
  const csv = path.join(os.tmpdir(), `loyalty-bench-codes-${process.pid}.csv`);
  writeFileSync(csv, Array.from({ length: codeCount }, (_, i) => `BENCH-${tag}-${i}`).join("\n"));
  const { couponPoolId } = await cli(dbEnv, "coupon-pool", "create", "--program", programId, "--name", "Bench pool");
  const importStart = performance.now();
  await cli(dbEnv, "coupon-pool", "import", "--pool", couponPoolId!, "--file", csv);
  const importSeconds = (performance.now() - importStart) / 1000;
  rmSync(csv, { force: true });
  log(`coupon import: ${codeCount.toLocaleString("en")} codes in ${importSeconds.toFixed(1)} s through the CLI`);
  ctx.results.couponImport = { codes: codeCount, seconds: Math.round(importSeconds * 10) / 10 };
  log("coupon assignments to random customers (ours)");
  const assign = await measure(
    ctx.ours.baseUrl,
    {
      method: "POST",
      headers: work.headers,
      setupRequest: (req) => ({
        ...req,
        path: `${work.base}/customers/${encodeURIComponent(pick(work.emails))}/coupons`,
        body: JSON.stringify({ couponPoolId }),
      }),
    },
    CONNECTIONS,
    10,
    WARMUP,
  );
  const { rows: doubles } = await sql.query(
    `SELECT count(*)::int AS n FROM (SELECT code FROM "Coupon" WHERE "poolId" = $1 AND "customerId" IS NOT NULL GROUP BY code HAVING count(*) > 1) d`,
    [couponPoolId],
  );
  ctx.add({
    family: "extra",
    name: "POST …/coupons (assign from a pool)",
    load: String(CONNECTIONS),
    ours: assign,
    refs: [],
    target: "no code assigned twice",
    pass: doubles[0].n === 0 && clean(assign),
  });
  const stock = 1_000_000;
  const { rewardId } = await cli(
    dbEnv,
    "reward",
    "create",
    "--program",
    programId,
    "--name",
    "Bench mug",
    "--cost-points",
    "1",
    "--stock",
    String(stock),
  );
  log("reward redemptions by the 10 hot-spot customers (ours)");
  const redeem = await measure(
    ctx.ours.baseUrl,
    {
      method: "POST",
      headers: work.headers,
      setupRequest: (req) => ({
        ...req,
        path: `${work.base}/customers/${encodeURIComponent(pick(hotEmails))}/rewards/${rewardId}/redeem`,
        body: "{}",
      }),
    },
    CONNECTIONS,
    10,
    WARMUP,
  );
  const { rows: stockRows } = await sql.query(
    `SELECT r.stock + (SELECT count(*) FROM "Redemption" x WHERE x."rewardId" = r.id)::int AS total FROM "Reward" r WHERE r.id = $1`,
    [rewardId],
  );
  ctx.add({
    family: "extra",
    name: "POST …/rewards/{id}/redeem (10 customers)",
    load: String(CONNECTIONS),
    ours: redeem,
    refs: [],
    target: "stock + redemptions = initial stock",
    pass: stockRows[0].total === stock && clean(redeem),
  });
}

/** One 1,000-item batch at a time (half new, half existing): one warm-up, then the median of 5; ours and bare. */
export async function batch1000Row(ctx: Context) {
  const { work } = ctx;
  const time = async (baseUrl: string) => {
    const times: number[] = [];
    for (let run = 0; run < 6; run++) {
      const body = work.batchBody(1000);
      const t0 = performance.now();
      const res = await fetch(`${baseUrl}${work.base}/integrations/api`, {
        method: "POST",
        headers: work.headers,
        body,
      });
      const ms = performance.now() - t0;
      if (res.status !== 201) throw new Error(`1,000-item batch: ${res.status} ${await res.text()}`);
      if (run > 0) times.push(Math.round(ms * 10) / 10);
    }
    return { times, median: [...times].sort((x, y) => x - y)[2]! };
  };
  log("1,000-item batch upserts: ours");
  const ours = await time(ctx.ours.baseUrl);
  log("1,000-item batch upserts: bare");
  const baseline = await time((await ctx.baseline()).baseUrl);
  ctx.results.batch1000 = {
    ours,
    baseline,
    target: `≤ ${TARGETS.batch1000Ms} ms`,
    pass: ours.median <= TARGETS.batch1000Ms,
  };
}
