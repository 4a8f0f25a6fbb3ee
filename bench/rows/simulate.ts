/**
 * Campaign simulations over real history (issue 25), row `simulate`: `POST …/campaigns/{id}/simulate` over a window
 * holding BENCH_SIMULATE_EVENTS customer events (default 100,000, spread over 30 days among the workload's
 * customers, written by SQL) with 5 active campaigns on their type (versions activated before the window) and the
 * simulated one's draft (twice the rate, with a budget). Target: ≥ 100,000 replayed events per minute.
 *
 * Reference in the same run: reading the same events alone (the simulation's paged query, every page, no replay),
 * so the ratio prices the replay (two evaluations per event) and the rest of the reads.
 */
import type { Context } from "../context";
import { log } from "../lifecycle";

export const SIMULATE_TARGET = 100_000;
const DAY_MS = 86_400_000;

export async function simulateRow(ctx: Context) {
  const { sql, work } = ctx;
  const events = Number(process.env.BENCH_SIMULATE_EVENTS ?? 100_000);
  const base = `${ctx.ours.baseUrl}${work.base}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: work.headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(600_000),
    });
    if (res.status >= 300) throw new Error(`simulate: ${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<{ id: string } & Record<string, unknown>>;
  };
  const type = `bench.sim.${Math.random().toString(36).slice(2, 7)}`;
  await call("PUT", `/event-types/${type}`, {
    attributes: { total: { type: "number", required: true }, channel: { type: "string" } },
  });
  const campaign = (i: number, rate: number, limits = {}) => ({
    name: `sim ${i}`,
    trigger: { event: type },
    conditions: {
      all: [
        { attr: "event.channel", op: "eq", value: "web" },
        { attr: "event.total", op: "gte", value: 10 },
      ],
    },
    effects: [{ type: "award_points", per: "event.total", rate, round: "down", max: 50 }],
    limits,
    priority: i,
  });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const c = await call("POST", "/campaigns", campaign(i, 0.1));
    await call("POST", `/campaigns/${c.id}/activate`);
    ids.push(c.id);
  }
  const simulated = ids[0]!;
  await call("PUT", `/campaigns/${simulated}`, campaign(0, 0.2, { budgetPoints: 500_000 }));
  const to = Date.now();
  const from = to - 30 * DAY_MS;
  // The versions ran before the window opened.
  await sql.query(`UPDATE "CampaignVersion" SET "activatedAt" = $2 WHERE "campaignId" = ANY($1::uuid[])`, [
    ids,
    new Date(from - DAY_MS),
  ]);
  const { rows: customers } = await sql.query(
    `SELECT "customerId" AS id FROM "LoyaltyData" WHERE "programId" = $1 ORDER BY "customerId" LIMIT 5000`,
    [work.program.programId],
  );
  const written = performance.now();
  await sql.query(
    `INSERT INTO "CustomerEvent" ("programId", "customerId", type, "occurredAt", attributes, outcome, "createdAt")
     SELECT $1::uuid, ($3::uuid[])[1 + g % cardinality($3::uuid[])], $2, t,
            jsonb_build_object('total', 1 + g % 200, 'channel', CASE WHEN g % 4 = 0 THEN 'store' ELSE 'web' END),
            '{}'::jsonb, t
     FROM generate_series(1, $4::int) g, LATERAL (SELECT $5::timestamptz + (g * $6::float8) * interval '1 millisecond') x(t)`,
    [
      work.program.programId,
      type,
      customers.map((c: { id: string }) => c.id),
      events,
      new Date(from),
      (to - from - 60_000) / events,
    ],
  );
  log(`simulate: ${events} events written in ${Math.round(performance.now() - written)} ms`);

  const started = performance.now();
  const report = (await call("POST", `/campaigns/${simulated}/simulate`, {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
  })) as unknown as { replayed: { events: number }; difference: { pointsIssued: number } };
  const seconds = (performance.now() - started) / 1000;
  if (report.replayed.events < events)
    throw new Error(`simulate replayed ${report.replayed.events} of ${events} events`);

  // Reference: the same events read page by page, as the simulation reads them, and nothing else.
  const readStarted = performance.now();
  let cursor: [Date, string] = [new Date(from - 1), "00000000-0000-0000-0000-000000000000"];
  for (;;) {
    const { rows } = await sql.query(
      `SELECT id::text AS id, "customerId"::text AS "customerId", type, "occurredAt", attributes, "createdAt"
       FROM "CustomerEvent" WHERE "programId" = $1::uuid AND "createdAt" < $2
         AND ("createdAt" > $3 OR ("createdAt" = $3 AND id > $4::uuid))
       ORDER BY "createdAt", id LIMIT 5000`,
      [work.program.programId, new Date(to), cursor[0], cursor[1]],
    );
    if (rows.length === 0) break;
    const last = rows[rows.length - 1];
    cursor = [last.createdAt, last.id];
    if (rows.length < 5000) break;
  }
  const readSeconds = (performance.now() - readStarted) / 1000;
  const perMinute = Math.round((report.replayed.events / seconds) * 60);
  const readPerMinute = Math.round((report.replayed.events / readSeconds) * 60);
  const figures = (perMin: number, s: number) => ({
    rps: Math.round(perMin / 60),
    p50: Math.round(s * 1000),
    p99: Math.round(s * 1000),
    requests: 1,
    errors: 0,
    non2xx: 0,
  });
  log(
    `simulate: ${report.replayed.events} events replayed in ${seconds.toFixed(1)} s (${perMinute.toLocaleString("en")}/min); read alone ${readSeconds.toFixed(1)} s; points difference ${report.difference.pointsIssued}`,
  );
  ctx.add({
    family: "simulate",
    name: `POST …/campaigns/{id}/simulate over ${events.toLocaleString("en")} events, 5 campaigns (replayed events/s; p50 = the call's ms)`,
    load: "1",
    ours: figures(perMinute, seconds),
    refs: [{ label: "reading the same events alone", figures: figures(readPerMinute, readSeconds) }],
    ratio: readSeconds / seconds,
    ratioOf: "reading alone",
    target: `≥ ${SIMULATE_TARGET.toLocaleString("en")} replayed events per minute`,
    pass: perMinute >= SIMULATE_TARGET,
  });
}
