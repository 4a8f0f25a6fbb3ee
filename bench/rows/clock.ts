/**
 * The program time machine (issue 25): advancing a test program of CLOCK_CUSTOMERS customers by one year through
 * `POST …/clock/advance`, target ≤ 60 s. The customers join in twelve monthly cohorts (the clock advanced a month
 * between them) and each earns once, so the year's advance steps through 24 due instants: every lot expires and
 * every tier period closes, each at its own instant, one transaction per instant.
 *
 * Reference in the same run: the same work done by the live scheduler's sweeps (`points expire`, `tiers
 * recalculate` for one program, through the CLI, process start included) on a live program loaded the same way,
 * its lots and periods moved into the past by SQL so that they are all due at once. The ratio prices the steps.
 */
import { clockCustomers } from "../config";
import type { Context } from "../context";
import { log } from "../lifecycle";
import { cli } from "../servers";

const START = Date.parse("2026-01-01T00:00:00.000Z");
const month = (m: number) => new Date(Date.UTC(2026, m, 1)).toISOString();
const CONCURRENCY = 16;

export async function clockRows(ctx: Context) {
  const customers = clockCustomers();
  const test = await loadedProgram(ctx, customers, true);
  const live = await loadedProgram(ctx, customers, false);

  // The year: from the last cohort's month (2026-12-01) to 2027-12-01. Every lot (12-month expiry) and every first
  // period (12 months from joining, 2026-01 … 2026-12) falls due on the way, at 2027-01-01 … 2027-12-01, plus the
  // cohorts' own instants.
  const to = month(23);
  const started = performance.now();
  const res = await fetch(`${ctx.ours.baseUrl}/v1/programs/${test.programId}/clock/advance`, {
    method: "POST",
    headers: { "api-key": test.key, "content-type": "application/json" },
    body: JSON.stringify({ to }),
    signal: AbortSignal.timeout(600_000),
  });
  const seconds = (performance.now() - started) / 1000;
  if (res.status !== 200) throw new Error(`clock advance answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const report = (await res.json()) as { steps: number; applied: { expiredLots: number; expiredPoints: number } };
  const { rows: left } = await ctx.sql.query(
    `SELECT count(*)::int AS n FROM "PointLot" WHERE "programId" = $1 AND remaining > 0`,
    [test.programId],
  );
  if (report.applied.expiredLots !== customers || left[0].n !== 0)
    throw new Error(`clock advance expired ${report.applied.expiredLots} lots of ${customers}; ${left[0].n} left`);

  // The reference: the live sweeps over the same work, all due at once.
  await ctx.sql.query(`UPDATE "PointLot" SET "expiresAt" = "expiresAt" - interval '2 years' WHERE "programId" = $1`, [
    live.programId,
  ]);
  await ctx.sql.query(
    `UPDATE "CustomerTier" SET "recalculationDate" = "recalculationDate" - interval '2 years' WHERE "programId" = $1`,
    [live.programId],
  );
  const sweepStarted = performance.now();
  await cli(ctx.dbEnv, "points", "expire", "--program", live.programId);
  await cli(ctx.dbEnv, "tiers", "recalculate", "--program", live.programId);
  const sweepSeconds = (performance.now() - sweepStarted) / 1000;
  const { rows: liveLeft } = await ctx.sql.query(
    `SELECT count(*)::int AS n FROM "PointLot" WHERE "programId" = $1 AND remaining > 0`,
    [live.programId],
  );
  if (liveLeft[0].n !== 0) throw new Error(`the live sweep left ${liveLeft[0].n} lots`);

  const round = (n: number) => Math.round(n * 10) / 10;
  ctx.results.clockAdvance = {
    customers,
    steps: report.steps,
    expiredLots: report.applied.expiredLots,
    seconds: round(seconds),
    sweepSeconds: round(sweepSeconds),
    target: "≤ 60 s",
    pass: seconds <= 60,
  };
  log(
    `clock: advance of ${customers} customers by a year in ${round(seconds)} s (${report.steps} steps); sweeps ${round(sweepSeconds)} s`,
  );
}

/**
 * A program (test, or live as the reference) of `customers` customers in twelve monthly cohorts, each customer
 * earning once in its month; a test program's clock is advanced a month between cohorts (nothing falls due).
 */
async function loadedProgram(ctx: Context, customers: number, test: boolean) {
  const flags = test ? ["--test", "--clock", new Date(START).toISOString()] : [];
  const { programId } = await cli(
    ctx.dbEnv,
    "program",
    "create",
    "--name",
    test ? "Clock test" : "Clock live",
    ...flags,
  );
  for (const [name, points] of [
    ["Bronze", 0],
    ["Silver", 1000],
  ] as const)
    await cli(
      ctx.dbEnv,
      "tier",
      "create",
      "--program",
      programId!,
      "--name",
      name,
      "--required-points",
      String(points),
      "--factor",
      "1",
    );
  await cli(ctx.dbEnv, "program", "update", "--id", programId!, "--points-expiry-months", "12");
  const { key } = await cli(
    ctx.dbEnv,
    "apikey",
    "create",
    "--program",
    programId!,
    "--name",
    "clock",
    "--rate-limit",
    "1000000",
  );
  const headers = { "api-key": key!, "content-type": "application/json" };
  const base = `${ctx.ours.baseUrl}/v1/programs/${programId}`;
  const post = async (path: string, body: unknown, expected: number) => {
    const res = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    if (res.status !== expected)
      throw new Error(`clock set-up ${path}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  };
  const tag = `${test ? "t" : "l"}${Math.random().toString(36).slice(2, 7)}`;
  const emails = Array.from({ length: customers }, (_, i) => `clock-${tag}-${i}@bench.example.com`);
  const perMonth = Math.ceil(customers / 12);
  for (let m = 0; m < 12; m++) {
    if (test && m > 0) await post("/clock/advance", { to: month(m) }, 200);
    const cohort = emails.slice(m * perMonth, (m + 1) * perMonth);
    for (let i = 0; i < cohort.length; i += 1000)
      await post(
        "/integrations/api",
        cohort.slice(i, i + 1000).map((email) => ({ email, feature: "user", payload: {} })),
        201,
      );
    let next = 0;
    const worker = async () => {
      while (next < cohort.length) {
        const i = next++;
        await post(
          `/customers/${encodeURIComponent(cohort[i]!)}/balance/increase`,
          { points: 100 + (i % 20) * 100 },
          200,
        );
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }
  log(`clock: ${test ? "test" : "live"} program of ${customers.toLocaleString("en")} customers loaded`);
  return { programId: programId!, key: key! };
}
