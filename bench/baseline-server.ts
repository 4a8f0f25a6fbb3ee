/**
 * The benchmark's baseline: the app's /v1 operations on a bare node:http server and a pg Pool (same size as
 * the app's), running the app's SQL as named prepared statements (as the app's adapter does), in as few round trips
 * as a hand-written server would:
 *
 *   GET  /healthz                                               a constant JSON (the bare node:http floor)
 *   GET  /v1/programs/{pid}/customers/{email}                   customerJson + customerJoins (lib/domain/sql.ts)
 *   POST /v1/programs/{pid}/integrations/api                    UPSERT_SQL + UPDATE_USER_SQL (./baseline-sql.ts) + events
 *   POST /v1/programs/{pid}/customers/{email}/balance/increase  ONE statement (./baseline-sql.ts): the customer by
 *        e-mail, the balance UPDATE, the ledger entry, its lot, the outbox event, the tier points (and upgrade), and,
 *        with an Idempotency-Key, the idempotency record holding the answer: the work of lib/domain/ledger.ts
 *        changeSql + applyTierEarn + lib/api/idempotency.ts storeOutcome. A twin with the same key fails on the
 *        record's unique index (the statement is atomic, so nothing of it stays) and answers with the stored outcome
 *        (or 409 when the request differs).
 *
 * With BASELINE_INCREASE=app the increase runs the app's own statement instead (changeSql with changeArgs: the same
 * text, the same arguments, named prepared as the app's adapter does), and a statement that a concurrent change
 * overtook runs again under the balance row's lock, as the app's locked path does. Ours ÷ that server is what the
 * issue's "same SQL" ratio asks for: the framework and the app's own work, the database's being equal.
 *
 *   POST /v1/programs/{pid}/customers/{email}/events            the app's own read and statement, always: the
 *        snapshot read and the decision (lib/domain/campaigns/customer-events.ts `customerEventValues`, the one
 *        evaluator), then the event's keyed statement (lib/api/one-statement.ts `eventSql`); an event the app would
 *        hand to its locked path is answered 501 (the bench's events never are), a lost race is read and decided
 *        again. One event per statement: its throughput ÷ this server's increase is what the app's per-event
 *        statement allows, without the batches the app writes concurrent events in (lib/api/event-batches.ts).
 *
 * Auth is done like the app's: SHA-256 of the api-key header, the key row looked up by hash, compared in
 * constant time, remembered for API_KEY_CACHE_MS (default 2000, the app's default). What the baseline lacks is
 * the framework and the app's safety work (zod validation, externalCustomerId pre-check, the idempotency pre-read,
 * rate limits, request ids, problem+json, a tier status or tier.changed event on an upgrade), so ours/baseline
 * measures what those cost. Tables that carry "programId" get it on insert when the schema has the column.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import pg from "pg";
import { customerJoins, customerJson } from "@/lib/domain/sql";
import { changeArgs, changeSql, eventSql } from "@/lib/api/one-statement";
import { keyedParams } from "@/lib/db/keyed-statement";
import { preparedName } from "@/lib/db/adapter";
import { customerEventValues } from "@/lib/domain/campaigns/customer-events";
import { outcomeSlot } from "@/lib/api/idempotency";
import { isLostRace } from "@/lib/db/statement";
import { increaseSql, UPDATE_USER_SQL, UPSERT_SQL } from "./baseline-sql";

const GET_SQL = `SELECT ${customerJson}::text AS body FROM "Customer" c ${customerJoins}
  WHERE c."programId" = $1::uuid AND c.email = $2 AND c."deletedAt" IS NULL`;
const KEY_SQL = `SELECT id, "programId", "secretHash", "revokedAt" FROM "ApiKey" WHERE "secretHash" = $1`;
const IDEMPOTENCY_SQL = `SELECT "requestHash", status, body FROM "IdempotencyRecord" WHERE "apiKeyId" = $1::uuid AND key = $2`;
const EVENTS_SQL = `INSERT INTO "Event" ("programId", type, data)
  SELECT $1::uuid, e.type, e.data FROM jsonb_to_recordset($2::jsonb) AS e(type text, data jsonb)`;

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
  // As the app's pool (lib/db/adapter.ts): the event statement's estimate would otherwise pass jit_above_cost.
  options: "-c jit=off",
});
pool.on("error", () => {});
const port = Number(process.env.PORT ?? 3999);
const q = (name: string, text: string, values: unknown[], client: pg.Pool | pg.PoolClient = pool) =>
  client.query({ name, text, values });

let INCREASE_SQL = "";
const APP_STATEMENT = process.env.BASELINE_INCREASE === "app";

const KEY_CACHE_MS = Number(process.env.API_KEY_CACHE_MS ?? 2000);
interface Caller {
  programId: string;
  apiKeyId: string;
}
const keyCache = new Map<string, { caller: Caller | null; until: number }>();

async function callerOf(req: http.IncomingMessage): Promise<Caller | null> {
  const key = req.headers["api-key"];
  if (typeof key !== "string" || !key.startsWith("lk_live_") || key.length > 128) return null;
  const hash = createHash("sha256").update(key.trim(), "utf8").digest("hex");
  const now = Date.now();
  const cached = keyCache.get(hash);
  if (cached && cached.until > now) return cached.caller;
  const { rows } = await q("bench_key", KEY_SQL, [hash]);
  const row = rows[0];
  const ok = row && !row.revokedAt && timingSafeEqual(Buffer.from(row.secretHash), Buffer.from(hash));
  const caller = ok ? { programId: row.programId as string, apiKeyId: row.id as string } : null;
  keyCache.set(hash, { caller, until: now + KEY_CACHE_MS });
  return caller;
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

/** The app's request fingerprint: method, path and the body as canonical JSON (lib/api/idempotency.ts). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const object = value as Record<string, unknown>;
    return `{${Object.keys(object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}
const fingerprint = (path: string, body: unknown) =>
  createHash("sha256")
    .update(`POST ${path}\n${canonicalJson(body)}`)
    .digest("hex");

function send(res: http.ServerResponse, status: number, body?: string) {
  res.writeHead(status, body ? { "content-type": "application/json" } : {});
  res.end(body);
}

async function inTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

type Item = { email: string; feature: string; payload: Record<string, unknown> };

async function upsertBatch(programId: string, body: unknown): Promise<number> {
  if (!Array.isArray(body) || body.length < 1 || body.length > 1000) return 400;
  const merged = new Map<string, Record<string, unknown>>();
  for (const item of body as Item[]) {
    if (typeof item?.email !== "string" || item.feature !== "user" || typeof item.payload !== "object") return 400;
    const email = item.email.trim().toLowerCase();
    merged.set(email, { ...merged.get(email), ...item.payload });
  }
  const items = [...merged].map(([email, payload]) => ({ email, payload }));
  const now = new Date().toISOString();
  await inTransaction(async (client) => {
    const { rows } = await q("bench_upsert", UPSERT_SQL, [programId, JSON.stringify(items), now], client);
    const updates = rows
      .filter((r) => !r.inserted && Object.keys(merged.get(r.email) ?? {}).length > 0)
      .map((r) => ({ customerId: r.id, payload: merged.get(r.email) }));
    if (updates.length) await q("bench_update", UPDATE_USER_SQL, [JSON.stringify(updates), now], client);
    const events = rows.map((r) => ({
      type: r.inserted ? "customer.created" : "customer.updated",
      data: { customerId: r.id, email: r.email, changes: Object.keys(merged.get(r.email) ?? {}) },
    }));
    await q("bench_events", EVENTS_SQL, [programId, JSON.stringify(events)], client);
  });
  return 201;
}

/** The Idempotency-Key header: undefined when absent, false when not a valid key. */
function idempotencyKeyOf(req: http.IncomingMessage): string | undefined | false {
  const key = req.headers["idempotency-key"];
  if (key === undefined) return undefined;
  return typeof key === "string" && key.length >= 1 && key.length <= 255 ? key : false;
}

/** The key's slot for the app's keyed statements (null without a key). */
const slotOf = (caller: Caller, path: string, key: string | null, body: { raw: string; value: unknown }) =>
  key === null
    ? null
    : outcomeSlot({ programId: caller.programId, scopeId: caller.apiKeyId, key, method: "POST", path, body });

/** The row of an app's keyed statement. */
type AppRow = { kind: string; status: number | null; body: string | null };

/** Its answer: the stored or new outcome, 409 for a key reused with another request, 404 for no such customer. */
function answerRow(res: http.ServerResponse, row: AppRow | undefined, otherwise: number) {
  if (row?.kind === "done" || row?.kind === "replay") return send(res, row.status!, row.body ?? undefined);
  return send(res, row?.kind === "conflict" ? 409 : row?.kind === "missing" ? 404 : otherwise);
}

async function increase(
  res: http.ServerResponse,
  caller: Caller,
  path: string,
  rawEmail: string,
  body: unknown,
  raw: string,
) {
  const email = decodeURIComponent(rawEmail).trim().toLowerCase();
  const points = (body as { points?: unknown } | null)?.points;
  if (typeof points !== "number" || !Number.isInteger(points) || points < 1 || points > 1_000_000_000)
    return send(res, 400);
  const key = idempotencyKeyOf(res.req);
  if (key === false) return send(res, 400);
  if (APP_STATEMENT)
    return increaseWithAppStatement(res, caller, path, email, points, key ?? null, { raw, value: body });
  const hash = key === undefined ? null : fingerprint(path, body);
  try {
    const { rows } = await q("bench_increase", INCREASE_SQL, [
      caller.programId,
      email,
      points,
      `api_key:${caller.apiKeyId}`,
      key ?? null,
      caller.apiKeyId,
      hash,
    ]);
    return rows[0] ? send(res, 200, rows[0].body) : send(res, 404);
  } catch (err) {
    // A twin with the same key committed first: the whole statement rolled back; answer as the twin did.
    if ((err as { code?: string }).code !== "23505" || key === undefined) throw err;
    return replayTwin(res, caller, key, hash);
  }
}

async function replayTwin(res: http.ServerResponse, caller: Caller, key: string, hash: string | null) {
  const { rows } = await q("bench_idempotency", IDEMPOTENCY_SQL, [caller.apiKeyId, key]);
  if (!rows[0]) return send(res, 500);
  if (rows[0].requestHash !== hash) return send(res, 409);
  return send(res, rows[0].status, rows[0].body ?? undefined);
}

/** The increase as the app's statement (BASELINE_INCREASE=app). */
async function increaseWithAppStatement(
  res: http.ServerResponse,
  caller: Caller,
  path: string,
  email: string,
  points: number,
  key: string | null,
  body: { raw: string; value: unknown },
) {
  const programId = caller.programId;
  const slot = slotOf(caller, path, key, body);
  const change = { programId, customerId: null, email, points, type: "earn" as const, source: "api" as const };
  const args = changeArgs({ ...change, actor: `api_key:${caller.apiKeyId}`, idempotencyKey: key }, slot);
  const text = changeSql(change);
  const run = (client: pg.Pool | pg.PoolClient = pool) => q("bench_increase_app", text, args, client);
  let row: AppRow | undefined;
  try {
    [row] = (await run()).rows;
  } catch (err) {
    if ((err as { code?: string }).code === "23505" && slot) return replayTwin(res, caller, slot.key, slot.fingerprint);
    if (!isLostRace(err)) throw err;
  }
  if (!row || row.kind === "race") {
    // Overtaken by a concurrent change: again under the balance row's lock, which nothing can overtake.
    row = await inTransaction(async (client) => {
      await q("bench_lock", LOCK_SQL, [programId, email], client);
      return (await run(client)).rows[0];
    });
  }
  return answerRow(res, row, 409);
}

/** The app's statements named as its adapter names them (one text, one name), for `customerEventValues`' reads. */
const appQueries = {
  $queryRawUnsafe: async <T>(text: string, ...values: unknown[]) =>
    (await pool.query({ name: preparedName({ sql: text }), text, values })).rows as T,
};

/** A keyed event, as the app's one statement (module comment). */
async function event(
  res: http.ServerResponse,
  caller: Caller,
  path: string,
  rawEmail: string,
  body: unknown,
  raw: string,
) {
  const b = body as { type?: unknown; occurredAt?: unknown; orderId?: unknown; attributes?: unknown } | null;
  if (typeof b?.type !== "string" || typeof b.attributes !== "object" || b.attributes === null) return send(res, 400);
  const key = idempotencyKeyOf(res.req);
  if (key === false) return send(res, 400);
  const programId = caller.programId;
  const slot = slotOf(caller, path, key ?? null, { raw, value: body });
  const input = {
    programId,
    email: decodeURIComponent(rawEmail).trim().toLowerCase(),
    type: b.type,
    occurredAt: typeof b.occurredAt === "string" ? new Date(b.occurredAt) : null,
    orderId: typeof b.orderId === "string" ? b.orderId : null,
    attributes: b.attributes as Record<string, unknown>,
    actor: `api_key:${caller.apiKeyId}`,
    idempotencyKey: key ?? null,
    dryRun: false,
  };
  for (;;) {
    const plan = await customerEventValues(appQueries, { ...input, now: new Date() });
    if (!plan) return send(res, 501);
    const text = eventSql(plan.shape);
    let row: AppRow | undefined;
    try {
      [row] = (await q(preparedName({ sql: text }), text, [...keyedParams(slot), ...plan.values])).rows;
    } catch (err) {
      if ((err as { code?: string }).code === "23505" && slot)
        return replayTwin(res, caller, slot.key, slot.fingerprint);
      if (isLostRace(err)) continue;
      throw err;
    }
    if (row?.kind === "race") continue;
    return answerRow(res, row, 501);
  }
}

const LOCK_SQL = `SELECT 1 FROM "LoyaltyData" l JOIN "Customer" c ON c.id = l."customerId"
  WHERE c."programId" = $1::uuid AND c.email = $2 AND c."deletedAt" IS NULL FOR UPDATE OF l`;

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/healthz") return send(res, 200, '{"status":"ok"}');
    const m =
      /^\/v1\/programs\/([^/]+)\/(?:(integrations\/api)|customers\/([^/]+)(\/balance\/increase|\/events)?)$/.exec(
        url.pathname,
      );
    if (!m) return send(res, 404);
    const caller = await callerOf(req);
    if (!caller) return send(res, 401);
    if (caller.programId !== m[1]) return send(res, 404);
    if (req.method === "GET" && m[3] && !m[4]) {
      const { rows } = await q("bench_get", GET_SQL, [caller.programId, decodeURIComponent(m[3]).trim().toLowerCase()]);
      return rows[0] ? send(res, 200, rows[0].body) : send(res, 404);
    }
    if (req.method !== "POST") return send(res, 405);
    let body: unknown;
    const raw = await readBody(req);
    try {
      body = JSON.parse(raw);
    } catch {
      return send(res, 400);
    }
    if (m[2]) return send(res, await upsertBatch(caller.programId, body));
    if (m[4] === "/events") return await event(res, caller, url.pathname, m[3]!, body, raw);
    return await increase(res, caller, url.pathname, m[3]!, body, raw);
  } catch (err) {
    console.error(err);
    send(res, 500);
  }
});

/** Which tables have a "programId" column in this schema (the baseline writes it where it exists). */
const { rows: withProgramId } = await pool.query<{ table_name: string }>(
  `SELECT table_name FROM information_schema.columns WHERE column_name = 'programId' AND table_schema = current_schema()`,
);
INCREASE_SQL = increaseSql(new Set(withProgramId.map((r) => r.table_name)));
server.listen(port, "127.0.0.1", () => console.log(`baseline listening on ${port}`));
