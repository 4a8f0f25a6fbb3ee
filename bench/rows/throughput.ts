/**
 * Saturation rows (CONNECTIONS connections, alternating slices): the framework floor and the 401 path, GET customer,
 * POST increase with an Idempotency-Key, the rate-limit store, the 100-item batch. Ours is compared with `next start`
 * of the same build and with the bare node:http + pg server running the same SQL.
 */
import { CONNECTIONS, SECONDS, TARGETS, WARMUP } from "../config";
import { clean, type Context, type Row } from "../context";
import { log } from "../lifecycle";
import { alternate, ratioOf, type Figures, type LoadRequest } from "../load";
import type { Server } from "../servers";

/**
 * Ours, `next start` (unless ours is `next start`) and the bare server on one request; a row with ours ÷ bare.
 * `sameStatement`: the bare server running the app's own statement as well, and the ratio against it (the note
 * gives the one against the hand-written statement).
 */
async function threeWay(
  ctx: Context,
  family: Row["family"],
  name: string,
  request: LoadRequest,
  options: {
    seconds?: number;
    warmup?: number;
    connections?: number;
    expectNon2xx?: boolean;
    sameStatement?: boolean;
  } = {},
): Promise<Row> {
  const connections = options.connections ?? CONNECTIONS;
  const servers: Server[] = [ctx.ours];
  const next = await ctx.nextStart();
  if (next) servers.push(next);
  const noNext = "ours is `next start` (what npm start runs): no separate next start column";
  if (!next && !ctx.results.notes.includes(noNext)) ctx.results.notes.push(noNext);
  const bare = await ctx.baseline();
  servers.push(bare);
  if (options.sameStatement) servers.push(await ctx.baselineSameStatement());
  const figures = await alternate(
    name,
    servers,
    request,
    connections,
    options.seconds ?? SECONDS,
    options.warmup ?? WARMUP,
  );
  const o = figures[0]!;
  const b = figures[next ? 2 : 1]!;
  const same = options.sameStatement ? figures.at(-1)! : null;
  const refs = [
    ...(next ? [{ label: "next start", figures: figures[1]! }] : []),
    { label: same ? "bare node:http + pg, hand-written statement" : "bare node:http + pg", figures: b },
    ...(same ? [{ label: "bare node:http + pg, the app's statement", figures: same }] : []),
  ];
  return ctx.add({
    family,
    name,
    load: String(connections),
    ours: o,
    refs,
    ratio: ratioOf(o, same ?? b),
    ratioOf: same ? "bare, same statement" : "bare",
    note: same ? `ours ÷ bare with the hand-written statement ${ratioOf(o, b)?.toFixed(2) ?? "n/a"}` : undefined,
  });
}

/**
 * The framework floor: a constant-JSON app-router route handler of this app. /healthz (app/healthz/route.ts, process
 * alive, no database) is that route; BENCH_FLOOR_PATH names another.
 */
const FLOOR_PATH = process.env.BENCH_FLOOR_PATH?.trim() || "/healthz";

export async function floorRows(ctx: Context) {
  const probe = await fetch(ctx.ours.baseUrl + FLOOR_PATH);
  const body = await probe.text();
  const floor =
    probe.status === 200 && probe.headers.get("content-type")?.includes("json") && body.length < 4096
      ? { path: FLOOR_PATH, what: `GET ${FLOOR_PATH}` }
      : null;
  if (floor) {
    const bare = await ctx.baseline();
    const [o, b] = await alternate(
      "framework floor",
      [ctx.ours, bare],
      { method: "GET", path: floor.path },
      CONNECTIONS,
      Math.max(3, SECONDS / 3),
      Math.min(WARMUP, 2),
    );
    ctx.add({
      family: "floor",
      name: `framework floor: constant JSON, ${floor.what}`,
      load: String(CONNECTIONS),
      ours: o!,
      refs: [{ label: "bare node:http constant JSON", figures: b! }],
      ratio: ratioOf(o!, b!),
      ratioOf: "bare",
      target: "reference (no errors)",
      pass: clean(o!),
    });
  } else {
    ctx.results.notes.push(
      `${FLOOR_PATH} answered ${probe.status}, not a small JSON: no framework floor row (this build has no such route)`,
    );
  }
  const row = await threeWay(ctx, "floor", "401 without api-key (no database)", ctx.work.unauthorized(), {
    seconds: Math.max(3, SECONDS / 3),
    warmup: Math.min(WARMUP, 2),
    expectNon2xx: true,
  });
  row.target = "reference (no errors)";
  row.pass = clean(row.ours, true);
}

/** Ours ÷ the framework floor, when the floor row ran: how close to the framework's own cost a route comes. */
function againstFloor(ctx: Context, row: Row) {
  const floor = ctx.results.rows.find((r) => r.family === "floor" && r.name.startsWith("framework floor"));
  if (floor)
    row.note = [row.note, `ours ÷ framework floor ${(row.ours.rps / floor.ours.rps).toFixed(2)}`]
      .filter(Boolean)
      .join("; ");
}

export async function getRow(ctx: Context) {
  // Same answer from both for the same customer: the comparison is of equal work.
  const bare = await ctx.baseline();
  const path = `${ctx.work.base}/customers/${encodeURIComponent(ctx.work.emails[0]!)}`;
  const [a, b] = await Promise.all(
    [ctx.ours, bare].map(async (s) => {
      const res = await fetch(s.baseUrl + path, { headers: ctx.work.headers });
      return { status: res.status, body: await res.text() };
    }),
  );
  if (a!.status !== 200 || a!.body !== b!.body)
    throw new Error(
      `ours and the bare server disagree on GET:\nours ${a!.status} ${a!.body}\nbare ${b!.status} ${b!.body}`,
    );
  const row = await threeWay(ctx, "get", "GET /customers/{email}", ctx.work.getCustomer());
  row.target = `ours ÷ bare ≥ ${TARGETS.getRatio}`;
  row.pass = (row.ratio ?? 0) >= TARGETS.getRatio && clean(row.ours);
  againstFloor(ctx, row);
}

export async function increaseRow(ctx: Context) {
  await sameIncrease(ctx);
  const row = await threeWay(ctx, "increase", "POST …/balance/increase, Idempotency-Key", ctx.work.increase(true), {
    sameStatement: true,
  });
  row.target = `ours ÷ bare ≥ ${TARGETS.increaseRatio}`;
  row.pass = (row.ratio ?? 0) >= TARGETS.increaseRatio && clean(row.ours);
  againstFloor(ctx, row);
}

/**
 * Equal work: one keyed increase on ours and one on the bare server write the same rows (ledger entry, lot, event,
 * idempotency record) and answer the same shape, and a retry with the same key replays the same answer on both.
 */
export async function sameIncrease(ctx: Context) {
  const { sql, work } = ctx;
  const bare = await ctx.baseline();
  const counts = async (email: string) => {
    const { rows } = await sql.query(
      `SELECT (SELECT count(*) FROM "LedgerEntry" e WHERE e."customerId" = c.id)::int AS entries,
              (SELECT count(*) FROM "PointLot" p WHERE p."customerId" = c.id)::int AS lots,
              (SELECT count(*) FROM "Event" v WHERE v."programId" = c."programId" AND v.data->>'customerId' = c.id::text)::int AS events,
              (SELECT count(*) FROM "IdempotencyRecord" r WHERE r."customerId" = c.id)::int AS records,
              (SELECT "currentTierPoints" FROM "CustomerTier" t WHERE t."customerId" = c.id) AS "tierPoints"
       FROM "Customer" c WHERE c."programId" = $1 AND c.email = $2`,
      [work.program.programId, email],
    );
    return rows[0] as Record<string, number>;
  };
  const shape = (body: string) => {
    const json = JSON.parse(body);
    return JSON.stringify([Object.keys(json).sort(), Object.keys(json.transaction ?? {}).sort()]);
  };
  const outcomes = [];
  for (const [i, server] of [ctx.ours, bare].entries()) {
    const email = work.emails[10 + i]!;
    const before = await counts(email);
    const key = `bench-equal-${Date.now()}-${i}`;
    const send = () =>
      fetch(`${server.baseUrl}${work.base}/customers/${encodeURIComponent(email)}/balance/increase`, {
        method: "POST",
        headers: { ...work.headers, "idempotency-key": key },
        body: JSON.stringify({ points: 7 }),
      }).then(async (res) => ({ status: res.status, body: await res.text() }));
    const first = await send();
    const again = await send();
    const after = await counts(email);
    const delta = Object.fromEntries(Object.keys(after).map((k) => [k, Number(after[k]) - Number(before[k])]));
    outcomes.push({ server: server.name, first, again, delta });
  }
  const [o, b] = outcomes;
  const problems = [];
  for (const x of outcomes) {
    if (x.first.status !== 200) problems.push(`${x.server}: ${x.first.status} ${x.first.body}`);
    if (x.again.status !== x.first.status || x.again.body !== x.first.body) problems.push(`${x.server}: no replay`);
  }
  if (!problems.length && shape(o!.first.body) !== shape(b!.first.body)) problems.push("answers differ in shape");
  if (JSON.stringify(o!.delta) !== JSON.stringify(b!.delta))
    problems.push(`rows written differ: ours ${JSON.stringify(o!.delta)}, bare ${JSON.stringify(b!.delta)}`);
  if (problems.length) throw new Error(`ours and the bare server do not do the same increase: ${problems.join("; ")}`);
  log(`equal work: one keyed increase writes ${JSON.stringify(o!.delta)} on both, and both replay it`);
}

export async function rateLimitRow(ctx: Context) {
  // `ours` keeps the buckets in PostgreSQL (the default with a server: one limit for every instance, one more
  // statement per request); a second instance of the same build keeps them in memory (exact for one instance only).
  const memory = await ctx.another(1, { RATE_LIMIT_STORE: "memory" }, undefined, "ours, buckets in memory");
  try {
    const [o, m] = await alternate(
      "rate-limit store",
      [ctx.ours, memory],
      ctx.work.getCustomer(),
      CONNECTIONS,
      SECONDS,
      WARMUP,
    );
    ctx.add({
      family: "ratelimit",
      name: "GET, rate-limit buckets in PostgreSQL",
      load: String(CONNECTIONS),
      ours: o!,
      refs: [{ label: "same build, buckets in memory", figures: m! }],
      ratio: ratioOf(o!, m!),
      ratioOf: "in memory",
      target: "cost of the shared bucket",
      pass: clean(o!),
    });
  } finally {
    await memory.child.stop();
  }
}

export async function batch100Row(ctx: Context) {
  const bare = await ctx.baseline();
  const [o, b] = await alternate("100-item batch", [ctx.ours, bare], ctx.work.batch(100), 10, SECONDS, WARMUP);
  ctx.add({
    family: "batch100",
    name: "POST /integrations/api, 100 items",
    load: "10",
    ours: o!,
    refs: [{ label: "bare node:http + pg", figures: b! }],
    ratio: ratioOf(o!, b!),
    ratioOf: "bare",
  });
}

export type { Figures };
