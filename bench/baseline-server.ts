/**
 * The benchmark's baseline: the app's /v1 operations on a bare node:http server and a pg Pool (same size as
 * the app's), running the app's own SQL text as named prepared statements (as the app's adapter does):
 *
 *   GET  /v1/programs/{pid}/customers/{email}                   customerJson + customerJoins (lib/domain/sql.ts)
 *   POST /v1/programs/{pid}/integrations/api                    UPSERT_SQL + UPDATE_USER_SQL + outbox events
 *   POST /v1/programs/{pid}/customers/{email}/balance/increase  CHANGE_SQL (lib/domain/ledger.ts)
 *
 * Auth is done like the app's: SHA-256 of the api-key header, the key row looked up by hash, compared in
 * constant time, remembered for API_KEY_CACHE_MS (default 2000, the app's default). What the baseline lacks is
 * the framework and the app's safety work (zod validation, externalCustomerId pre-check, idempotency, rate
 * limits, request ids, problem+json), so ours/baseline measures what those cost.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import pg from "pg";
import { customerJoins, customerJson } from "@/lib/domain/sql";
import { UPDATE_USER_SQL, UPSERT_SQL } from "@/lib/domain/customers";
import { CHANGE_SQL, changeArgs } from "@/lib/domain/ledger";

const GET_SQL = `SELECT ${customerJson}::text AS body FROM "Customer" c ${customerJoins}
  WHERE c."programId" = $1::uuid AND c.email = $2 AND c."deletedAt" IS NULL`;
const KEY_SQL = `SELECT id, "programId", "secretHash", "revokedAt" FROM "ApiKey" WHERE "secretHash" = $1`;
const FIND_SQL = `SELECT id FROM "Customer" WHERE "programId" = $1::uuid AND email = $2 AND "deletedAt" IS NULL`;
const EVENTS_SQL = `INSERT INTO "Event" ("programId", type, data)
  SELECT $1::uuid, e.type, e.data FROM jsonb_to_recordset($2::jsonb) AS e(type text, data jsonb)`;

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
pool.on("error", () => {});
const port = Number(process.env.PORT ?? 3999);
const q = (name: string, text: string, values: unknown[], client: pg.Pool | pg.PoolClient = pool) =>
  client.query({ name, text, values });

const KEY_CACHE_MS = Number(process.env.API_KEY_CACHE_MS ?? 2000);
const keyCache = new Map<string, { programId: string | null; until: number }>();

async function programOf(req: http.IncomingMessage): Promise<string | null> {
  const key = req.headers["api-key"];
  if (typeof key !== "string" || !key.startsWith("lk_live_") || key.length > 128) return null;
  const hash = createHash("sha256").update(key.trim(), "utf8").digest("hex");
  const now = Date.now();
  const cached = keyCache.get(hash);
  if (cached && cached.until > now) return cached.programId;
  const { rows } = await q("bench_key", KEY_SQL, [hash]);
  const row = rows[0];
  const ok = row && !row.revokedAt && timingSafeEqual(Buffer.from(row.secretHash), Buffer.from(hash));
  const programId = ok ? (row.programId as string) : null;
  keyCache.set(hash, { programId, until: now + KEY_CACHE_MS });
  return programId;
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

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
  await inTransaction(async (client) => {
    const { rows } = await q("bench_upsert", UPSERT_SQL, [programId, JSON.stringify(items)], client);
    const updates = rows
      .filter((r) => !r.inserted && Object.keys(merged.get(r.email) ?? {}).length > 0)
      .map((r) => ({ customerId: r.id, payload: merged.get(r.email) }));
    if (updates.length) await q("bench_update", UPDATE_USER_SQL, [JSON.stringify(updates)], client);
    const events = rows.map((r) => ({
      type: r.inserted ? "customer.created" : "customer.updated",
      data: { customerId: r.id, email: r.email, changes: Object.keys(merged.get(r.email) ?? {}) },
    }));
    await q("bench_events", EVENTS_SQL, [programId, JSON.stringify(events)], client);
  });
  return 201;
}

http
  .createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://x");
      const m = /^\/v1\/programs\/([^/]+)\/(?:(integrations\/api)|customers\/([^/]+)(\/balance\/increase)?)$/.exec(
        url.pathname,
      );
      if (!m) return send(res, 404);
      const programId = await programOf(req);
      if (!programId) return send(res, 401);
      if (programId !== m[1]) return send(res, 404);
      if (req.method === "GET" && m[3] && !m[4]) {
        const { rows } = await q("bench_get", GET_SQL, [programId, decodeURIComponent(m[3]).trim().toLowerCase()]);
        return rows[0] ? send(res, 200, rows[0].body) : send(res, 404);
      }
      if (req.method !== "POST") return send(res, 405);
      const body = JSON.parse(await readBody(req));
      if (m[2]) return send(res, await upsertBatch(programId, body));
      const email = decodeURIComponent(m[3]!).trim().toLowerCase();
      const points = body?.points;
      if (!Number.isInteger(points) || points < 1 || points > 1_000_000_000) return send(res, 400);
      const out = await inTransaction(async (client) => {
        const { rows: found } = await q("bench_find", FIND_SQL, [programId, email], client);
        if (!found[0]) return null;
        const { rows } = await q(
          "bench_change",
          CHANGE_SQL,
          changeArgs(
            { programId, customerId: found[0].id, points, type: "earn", source: "api", actor: "baseline" },
            null,
          ),
          client,
        );
        return rows[0];
      });
      return out?.body ? send(res, 200, out.body) : send(res, 404);
    } catch (err) {
      console.error(err);
      send(res, 500);
    }
  })
  .listen(port, "127.0.0.1", () => console.log(`baseline listening on ${port}`));
