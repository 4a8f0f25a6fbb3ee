/**
 * The benchmark's baseline: the same operations as the app's /v1 endpoints, with the same SQL, on a bare
 * node:http server and a pg Pool. What it lacks is the framework and the app's safety work (zod validation,
 * idempotency, rate limits, problem+json, tier rules, lots), so ours/baseline measures what those cost.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import pg from "pg";
import { GET_CUSTOMER_SQL, UPDATE_USER_SQL, UPSERT_SQL } from "@/lib/domain/customers";
import { CHANGE_SQL } from "@/lib/domain/ledger";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
const port = Number(process.env.PORT ?? 3999);
// Prepared statements, as a careful hand-written server would use (and as the app does).
const q = (name: string, text: string, values: unknown[], client: pg.Pool | pg.PoolClient = pool) => client.query({ name, text, values });

async function programOf(req: http.IncomingMessage): Promise<string | null> {
  const key = req.headers["api-key"];
  if (typeof key !== "string") return null;
  const hash = createHash("sha256").update(key).digest("hex");
  const { rows } = await q("key", `SELECT "programId" FROM "ApiKey" WHERE "secretHash" = $1 AND "revokedAt" IS NULL`, [hash]);
  return rows[0]?.programId ?? null;
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => resolve(body));
  });

function send(res: http.ServerResponse, status: number, body?: string) {
  res.writeHead(status, body ? { "content-type": "application/json" } : {});
  res.end(body);
}

http
  .createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://x");
      const m = /^\/v1\/programs\/([^/]+)\/(integrations\/api|customers\/([^/]+)(\/balance\/increase)?)$/.exec(url.pathname);
      if (!m) return send(res, 404);
      const programId = await programOf(req);
      if (!programId || programId !== m[1]) return send(res, 401);
      if (req.method === "GET" && m[3] && !m[4]) {
        const { rows } = await q("get", GET_CUSTOMER_SQL, [programId, decodeURIComponent(m[3]).toLowerCase()]);
        return rows[0] ? send(res, 200, rows[0].body) : send(res, 404);
      }
      const body = JSON.parse(await readBody(req));
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        if (m[2] === "integrations/api") {
          const merged = new Map<string, Record<string, unknown>>();
          for (const i of body as { email: string; payload: Record<string, unknown> }[]) {
            const email = i.email.toLowerCase();
            merged.set(email, { ...merged.get(email), ...i.payload });
          }
          const items = [...merged].map(([email, payload]) => ({ email, payload }));
          const { rows } = await q("upsert", UPSERT_SQL, [programId, JSON.stringify(items)], client);
          const payloads = new Map(items.map((i) => [i.email, i.payload]));
          const updates = rows.filter((r) => !r.inserted).map((r) => ({ customerId: r.id, payload: payloads.get(r.email) }));
          if (updates.length) await q("update", UPDATE_USER_SQL, [JSON.stringify(updates)], client);
          await client.query("COMMIT");
          return send(res, 201);
        }
        const email = decodeURIComponent(m[3]!).toLowerCase();
        const { rows: found } = await q("find", `SELECT id FROM "Customer" WHERE "programId" = $1 AND email = $2 AND "deletedAt" IS NULL`, [programId, email], client);
        if (!found[0]) {
          await client.query("ROLLBACK");
          return send(res, 404);
        }
        const { rows } = await q("change", CHANGE_SQL, [programId, found[0].id, body.points, "earn", null, "api", "baseline", null, null, null, null], client);
        await client.query("COMMIT");
        return send(res, 200, `{"balance":${rows[0].balance},"transaction":${rows[0].entry}}`);
      } catch (err) {
        await client.query("ROLLBACK");
        throw err;
      } finally {
        client.release();
      }
    } catch (err) {
      console.error(err);
      send(res, 500);
    }
  })
  .listen(port, "127.0.0.1", () => console.log(`baseline listening on ${port}`));
