/**
 * `npm start`'s process model (server/main.ts) on PostgreSQL: graceful shutdown and node:cluster workers.
 *
 * - SIGTERM while a write is in flight (held on a row lock that a second connection owns, so it is genuinely in
 *   flight when the signal lands): the write completes with 2xx, a new connection is refused meanwhile, and the
 *   process exits 0 once the answer is out.
 * - A request that never ends (the lock is never released) does not hold the process: it exits (code 1, saying why)
 *   within SHUTDOWN_TIMEOUT_MS; the cut write is whole or absent, and its retry with the same Idempotency-Key has one
 *   effect.
 * - LOYALTY_WORKERS=2: two worker processes (pids from the access log's JSON lines) both answer, and one
 *   SIGTERM to the primary stops them all, exit 0.
 *
 * PostgreSQL only: the lock is held from a second connection, and with PGlite there is always one process.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import pg from "pg";
import { openStack, waitFor, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { TWO_PROGRAMS } from "../support/fixtures";

function get(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on("error", reject);
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("npm start: graceful shutdown and workers [postgres]", { skip: !process.env.TEST_DATABASE_URL }, () => {
  let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
  before(async () => {
    stack = await openStack("postgres", TWO_PROGRAMS);
  });
  after(async () => {
    await stack?.close();
  });

  /** A customer whose balance row is locked by another connection until `release()`. */
  async function lockedCustomer(app: AppInstance, email: string) {
    const created = await app.api("POST", `/v1/programs/${stack.programId}/integrations/api`, {
      body: [{ email, feature: "user", payload: {} }],
    });
    assert.equal(created.status, 201, created.text);
    const client = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await client.connect();
    await client.query("BEGIN");
    const locked = await client.query(
      `SELECT 1 FROM "LoyaltyData" d JOIN "Customer" c ON c.id = d."customerId" WHERE c.email = $1 FOR UPDATE OF d`,
      [email],
    );
    assert.equal(locked.rowCount, 1);
    return {
      /** Whether some other session waits on a lock (the write is in flight in the server). */
      waiting: async () =>
        (
          await client.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
          )
        ).rows[0].n > 0,
      release: async () => {
        await client.query("COMMIT");
        await client.end();
      },
    };
  }

  const increase = (app: AppInstance, email: string, headers: Record<string, string> = {}) =>
    app.api("POST", `/v1/programs/${stack.programId}/customers/${encodeURIComponent(email)}/balance/increase`, {
      body: { points: 7 },
      headers,
    });

  test("SIGTERM: the write in flight completes with 2xx, new connections are refused, exit 0", async () => {
    const app = await stack.start({ SHUTDOWN_TIMEOUT_MS: "20000" });
    const email = "slow@example.com";
    const lock = await lockedCustomer(app, email);
    const inFlight = increase(app, email);
    await waitFor(lock.waiting, "the write to wait on the row lock", 10_000);
    const signalled = Date.now();
    process.kill(app.pid, "SIGTERM");
    await waitFor(() => app.logs().includes('"shutting down"'), "the server to start shutting down", 5000);
    await assert.rejects(get(app.baseUrl, "/v1/openapi.json"), /ECONNREFUSED/, "a new connection is refused");
    assert.equal(await Promise.race([app.exited, new Promise((r) => setTimeout(() => r("running"), 300))]), "running");
    await lock.release();
    const answer = await inFlight;
    assert.equal(answer.status, 200, answer.text);
    assert.equal((answer.json as { balance: number }).balance, 7);
    assert.equal(await app.exited, 0, app.logs());
    assert.ok(Date.now() - signalled < 10_000);
    assert.match(app.logs(), /"msg":"stopped"/);
    await app.stop();
  });

  test("a request that never ends does not hold the process: it exits within SHUTDOWN_TIMEOUT_MS", async () => {
    const app = await stack.start({ SHUTDOWN_TIMEOUT_MS: "1500" });
    const email = "stuck@example.com";
    const lock = await lockedCustomer(app, email);
    const key = { "Idempotency-Key": "cut-by-shutdown" };
    const inFlight = increase(app, email, key).catch((err: Error) => err);
    await waitFor(lock.waiting, "the write to wait on the row lock", 10_000);
    const signalled = Date.now();
    process.kill(app.pid, "SIGTERM");
    const code = await app.exited;
    const took = Date.now() - signalled;
    assert.equal(code, 1, app.logs());
    assert.ok(took >= 1400 && took < 5000, `exited after ${took} ms`);
    assert.match(app.logs(), /shutdown timed out/);
    assert.ok((await inFlight) instanceof Error, "the cut request fails at the client");
    await lock.release();
    await app.stop();
    // The write is one statement: PostgreSQL may still run it to its end once the lock is free (it notices the lost
    // client only when it answers), so it is whole or absent, never half; the client, whose request was cut, retries
    // with its Idempotency-Key and gets the one effect either way.
    const state = () =>
      stack.query<{ balance: number; entries: number; sum: number }>(
        `SELECT d.balance, (SELECT count(*) FROM "LedgerEntry" e WHERE e."customerId" = c.id)::int AS entries,
                (SELECT coalesce(sum(points), 0) FROM "LedgerEntry" e WHERE e."customerId" = c.id)::int AS sum
         FROM "LoyaltyData" d JOIN "Customer" c ON c.id = d."customerId" WHERE c.email = $1`,
        [email],
      );
    await new Promise((r) => setTimeout(r, 300));
    const [cut] = await state();
    assert.ok([0, 7].includes(Number(cut!.balance)), `balance ${cut!.balance}`);
    assert.equal(Number(cut!.balance), Number(cut!.sum));
    const again = await stack.start();
    const retried = await increase(again, email, key);
    assert.equal(retried.status, 200, retried.text);
    assert.equal((retried.json as { balance: number }).balance, 7);
    const [final] = await state();
    assert.deepEqual([Number(final!.balance), Number(final!.entries), Number(final!.sum)], [7, 1, 7]);
    await again.stop();
  });

  test("two workers both answer, and one SIGTERM to the primary stops them all", async () => {
    const app = await stack.start({ LOYALTY_WORKERS: "2" });
    const listening = () => [...app.logs().matchAll(/"msg":"listening","pid":(\d+)/g)].map((m) => Number(m[1]));
    await waitFor(() => listening().length === 2, "both workers to listen", 30_000);
    const workers = listening();
    assert.ok(!workers.includes(app.pid), "the primary only supervises");
    for (let i = 0; i < 40; i++) {
      assert.equal((await get(app.baseUrl, `/v1/programs/${stack.programId}/tiers`)).status, 401);
    }
    const accessLines = () =>
      app
        .logs()
        .split("\n")
        .filter((line) => line.startsWith("{") && line.includes('"msg":"request"'))
        .map((line) => JSON.parse(line) as { pid: number });
    await waitFor(() => accessLines().length >= 40, "the access log of the 40 requests", 5000);
    const served = new Set(accessLines().map((line) => line.pid));
    assert.deepEqual([...served].sort(), [...workers].sort(), "both workers answered");
    process.kill(app.pid, "SIGTERM");
    assert.equal(await app.exited, 0, app.logs());
    await waitFor(() => workers.every((pid) => !alive(pid)), "the workers to exit", 5000);
    await app.stop();
  });
});
