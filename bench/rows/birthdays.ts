/**
 * The daily birthday sweep of lifecycle campaigns (issue 24; lib/domain/campaigns/lifecycle.ts): a live program of
 * BENCH_BIRTHDAY_CUSTOMERS customers (loaded by SQL, birthdates spread over the year) with an active birthday
 * campaign; one sweep (`loyalty lifecycle fire`, CLI, process start included) at one minute past tomorrow's midnight
 * fires tomorrow's birthdays, each in its own transaction with its ledger entry and occurrence row. Issue target:
 * ≤ 30 s at 1,000,000 customers.
 *
 * Reference in the same run: finding the day's birthdays through the `UserData (programId, birthday)` index against
 * reading every customer's birthdate (the scan the index replaces). The sweep's cost grows with the day's birthdays
 * (about 1/365 of the customers), not with the customers: the extrapolation to 1,000,000 scales the firing time by the
 * birthdays and adds the indexed read, which stays a range read of one day: (sweep − idle sweep) × birthdays at
 * 1,000,000 ÷ birthdays here + idle sweep, where the idle sweep is the same command run again with nothing left to
 * fire (process start and the day's reads).
 */
import { birthdayCustomers } from "../config";
import type { Context } from "../context";
import { log } from "../lifecycle";
import { cli } from "../servers";

const MILLION = 1_000_000;

export async function birthdayRows(ctx: Context) {
  const customers = birthdayCustomers();
  const { programId } = await cli(ctx.dbEnv, "program", "create", "--name", "Birthdays");
  const { key } = await cli(
    ...[ctx.dbEnv, "apikey", "create", "--program", programId!, "--name", "birthdays", "--rate-limit", "1000"],
  );
  const loadStarted = performance.now();
  await ctx.sql.query(
    `INSERT INTO "Customer" ("programId", email, "createdAt", "updatedAt")
     SELECT $1::uuid, 'bday-' || i || '@bench.example.com', now() - interval '2 years', now()
     FROM generate_series(1, ${customers}) AS i`,
    [programId],
  );
  await ctx.sql.query(
    `INSERT INTO "UserData" ("customerId", "programId", birthdate, "updatedAt")
     SELECT id, "programId", to_char(date '1950-01-01' + (abs(hashtext(id::text)) % 20000), 'YYYY-MM-DD'), now()
     FROM "Customer" WHERE "programId" = $1::uuid`,
    [programId],
  );
  await ctx.sql.query(
    `INSERT INTO "LoyaltyData" ("programId", "customerId", "loyaltyCustomerId", "memberSince", "updatedAt")
     SELECT "programId", id, replace(id::text, '-', ''), "createdAt", now() FROM "Customer" WHERE "programId" = $1::uuid`,
    [programId],
  );
  await ctx.sql.query(
    `INSERT INTO "CustomerTier" ("programId", "customerId", "recalculationDate")
     SELECT "programId", id, now() + interval '1 year' FROM "Customer" WHERE "programId" = $1::uuid`,
    [programId],
  );
  await ctx.sql.query(`ANALYZE "Customer", "UserData", "LoyaltyData", "CustomerTier"`);
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  log(`birthdays: ${customers.toLocaleString("en")} customers loaded in ${loadSeconds.toFixed(0)} s`);

  const headers = { "api-key": key!, "content-type": "application/json" };
  const base = `${ctx.ours.baseUrl}/v1/programs/${programId}`;
  const created = await fetch(`${base}/campaigns`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      name: "Happy birthday",
      trigger: { lifecycle: "birthday" },
      effects: [{ type: "award_points", points: 100, tierFactor: false }],
    }),
  });
  if (created.status !== 201) throw new Error(`birthday campaign: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const on = await fetch(`${base}/campaigns/${id}/activate`, { method: "POST", headers });
  if (on.status !== 200) throw new Error(`birthday campaign activation: ${on.status} ${await on.text()}`);

  // Tomorrow (the program's time zone is UTC): its birthdays, with 29 February's on 28 February of a common year.
  const now = new Date();
  const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const year = tomorrow.getUTCFullYear();
  const md = tomorrow.toISOString().slice(5, 10);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const keys = md === "02-28" && !leap ? [md, "02-29"] : [md];

  const timed = async (text: string) => {
    const started = performance.now();
    const { rows } = await ctx.sql.query(text, [programId, keys]);
    return { n: rows[0].n as number, ms: performance.now() - started };
  };
  const indexed = await timed(
    `SELECT count(*)::int AS n FROM "UserData" WHERE "programId" = $1::uuid AND birthday = ANY($2::text[])`,
  );
  const scanned = await timed(
    `SELECT count(*)::int AS n FROM "UserData" WHERE "programId" = $1::uuid AND substr(birthdate, 6, 5) = ANY($2::text[])`,
  );
  if (indexed.n !== scanned.n) throw new Error(`birthdays: the index found ${indexed.n}, the scan ${scanned.n}`);

  const sweepStarted = performance.now();
  const result = await cli(
    ...[ctx.dbEnv, "lifecycle", "fire", "--program", programId!],
    ...["--now", new Date(tomorrow.getTime() + 60_000).toISOString()],
  );
  const seconds = (performance.now() - sweepStarted) / 1000;
  const fired = Number(result.fired);
  if (fired !== indexed.n) throw new Error(`birthdays: the sweep fired ${fired} of ${indexed.n} birthdays`);
  const { rows: entries } = await ctx.sql.query(
    `SELECT count(*)::int AS n FROM "LedgerEntry" WHERE "programId" = $1::uuid AND metadata->>'lifecycle' = 'birthday'`,
    [programId],
  );
  if (entries[0].n !== fired) throw new Error(`birthdays: ${entries[0].n} entries for ${fired} birthdays`);

  // The same sweep again finds nothing left to fire: process start and the day's reads, the part that does not grow
  // with the birthdays.
  const idleStarted = performance.now();
  const idle = await cli(
    ...[ctx.dbEnv, "lifecycle", "fire", "--program", programId!],
    ...["--now", new Date(tomorrow.getTime() + 120_000).toISOString()],
  );
  const idleSeconds = (performance.now() - idleStarted) / 1000;
  if (Number(idle.fired) !== 0) throw new Error(`birthdays: a second sweep fired ${idle.fired}`);

  const perBirthday = Math.max(0, seconds - idleSeconds) / Math.max(1, fired);
  const birthdaysAtMillion = Math.round((fired * MILLION) / customers);
  const extrapolated = idleSeconds + perBirthday * birthdaysAtMillion;
  const round = (n: number) => Math.round(n * 10) / 10;
  ctx.results.birthdays = {
    customers,
    birthdays: fired,
    seconds: round(seconds),
    idleSeconds: round(idleSeconds),
    indexedMs: round(indexed.ms),
    scanMs: round(scanned.ms),
    birthdaysAtMillion,
    extrapolatedSeconds: round(extrapolated),
    target: "≤ 30 s at 1,000,000 customers",
    pass: extrapolated <= 30,
  };
  log(
    `birthdays: ${fired} of ${customers} customers in ${round(seconds)} s (CLI; the same sweep with nothing left ` +
      `${round(idleSeconds)} s); day's birthdays by index ` +
      `${round(indexed.ms)} ms vs scan ${round(scanned.ms)} ms; at 1,000,000 ≈ ${birthdaysAtMillion} birthdays, ` +
      `≈ ${round(extrapolated)} s`,
  );
}
