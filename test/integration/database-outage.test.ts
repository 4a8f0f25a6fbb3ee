/**
 * Database trouble as a client of /v1 sees it (API.md §1 "Edges"), against a PostgreSQL server of this test's own
 * (scripts/pg-test-server.sh on a random port) so that it can be stopped:
 *  - every backend of the app's database is terminated again and again (pg_terminate_backend, as in a failover)
 *    under a bounded load of reads and keyed writes: no 5xx, because a request that had not committed is retried
 *    once on a fresh connection and a write whose COMMIT was cut settles by its stored idempotency outcome;
 *  - the server is stopped for a few seconds: meanwhile 503 `service_unavailable` with Retry-After, answered fast
 *    and never 401 or 500; afterwards success, and once every refused write is retried with its Idempotency-Key,
 *    each customer's balance is the sum of its ledger and of the writes sent, each exactly once.
 * PostgreSQL only (PGlite is in-process: it has no connection to lose). Skipped without PostgreSQL's binaries.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import {
  customerPath,
  openStack,
  waitFor,
  type ApiResponse,
  type AppInstance,
  type Fixtures,
  type Stack,
} from "../support/stack";
import { fixtures, program } from "../support/fixtures";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const HAVE_POSTGRES = existsSync(path.join(PG_BIN, "initdb"));
/** This file's own server: a random port, so that parallel runs on one machine do not share (and stop) it. */
const PG_PORT = String(56_000 + Math.floor(Math.random() * 800));

const CUSTOMERS = 12;
const WORKERS = 6;

async function pgServer(command: "start" | "stop" | "pause" | "resume"): Promise<string> {
  const { stdout } = await promisify(execFile)("bash", [path.join(ROOT, "scripts/pg-test-server.sh"), command], {
    env: { ...process.env, PGPORT_TEST: PG_PORT },
  });
  return stdout;
}

/** One program and its key: all this test needs, made with two CLI runs. */
const SPEC = fixtures("outage", program("Outage Program"));

interface Write {
  email: string;
  points: number;
  key: string;
}

interface Outcome {
  status: number;
  ms: number;
  res: ApiResponse;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(
  "Database outage: 503 while PostgreSQL is away, lost connections retried [postgres]",
  { skip: !HAVE_POSTGRES && `no PostgreSQL binaries in ${PG_BIN}` },
  () => {
    let stack: Stack<Fixtures<typeof SPEC>>;
    let app: AppInstance;
    let admin: pg.Client;
    let database: string;
    const emails = Array.from({ length: CUSTOMERS }, (_, i) => `outage.${i}@example.com`);
    /** Every write sent, by key; `done` once it was answered 200. */
    const writes = new Map<string, Write & { done: boolean }>();
    let seq = 0;

    before(async () => {
      const url = /TEST_DATABASE_URL=(\S+)/.exec(await pgServer("start"))?.[1];
      assert.ok(url, "pg-test-server.sh printed its URL");
      process.env.TEST_DATABASE_URL = url; // openStack makes its database on this server
      stack = await openStack("postgres", SPEC);
      app = await stack.start();
      database = new URL(stack.env.DATABASE_URL!).pathname.slice(1);
      admin = new pg.Client({ connectionString: url });
      admin.on("error", () => {}); // cut when the server is paused; not used after that
      await admin.connect();
      const created = await app.api("POST", `/v1/programs/${stack.programId}/integrations/api`, {
        body: emails.map((email) => ({ email, feature: "user", payload: {} })),
      });
      assert.equal(created.status, 201, created.text);
    });
    after(async () => {
      await admin?.end().catch(() => {});
      await stack?.close().catch(() => {});
      await pgServer("stop").catch(() => {});
    });

    async function timed(call: () => Promise<ApiResponse>): Promise<Outcome> {
      const started = performance.now();
      const res = await call();
      return { status: res.status, ms: performance.now() - started, res };
    }

    const increase = (w: Write) =>
      app.api("POST", `${customerPath(stack.programId, w.email)}/balance/increase`, {
        body: { points: w.points },
        headers: { "idempotency-key": w.key },
      });

    /**
     * Rounds of termination: each worker's latest request that started in round `doneIn[worker]` has finished.
     * The killer waits for every worker to finish a request begun after its last round before the next one, so a
     * request and its one retry never straddle two rounds, however slow the machine.
     */
    let round = 0;
    const doneIn: number[] = Array.from({ length: WORKERS }, () => -1);

    /** Reads and keyed writes, half and half, from WORKERS clients until `stop()` says so. */
    async function load(stop: () => boolean): Promise<Outcome[]> {
      const outcomes: Outcome[] = [];
      await Promise.all(
        Array.from({ length: WORKERS }, async (_, worker) => {
          for (let i = 0; !stop(); i++) {
            const startedIn = round;
            const email = emails[(worker * 7 + i) % CUSTOMERS]!;
            if (i % 2 === 0) {
              outcomes.push(await timed(() => app.api("GET", customerPath(stack.programId, email))));
            } else {
              const w = { email, points: 1 + ((worker + i) % 5), key: `outage-${++seq}`, done: false };
              writes.set(w.key, w);
              const o = await timed(() => increase(w));
              if (o.status === 200) w.done = true;
              outcomes.push(o);
            }
            doneIn[worker] = startedIn;
          }
        }),
      );
      return outcomes;
    }

    const terminateAll = async () =>
      (
        await admin.query<{ n: string }>(
          "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [database],
        )
      ).rows[0]!.n;

    test("every backend terminated again and again under load: no 5xx, every write answered once", async (t) => {
      let stop = false;
      let terminated = 0;
      const killer = (async () => {
        for (let r = 0; r < 8; r++) {
          await waitFor(() => doneIn.every((d) => d >= round), "every worker past the last round", 20_000);
          await sleep(150 + (r % 3) * 100); // land in the middle of requests
          terminated += Number(await terminateAll());
          round++;
        }
        stop = true;
      })();
      const outcomes = await load(() => stop);
      await killer;
      assert.ok(terminated >= 8, `backends terminated: ${terminated}`);
      t.diagnostic(`${outcomes.length} requests, ${terminated} backends terminated in 8 rounds`);
      const bad = outcomes.filter((o) => o.status !== 200);
      // On failure, the app's own log line of each such request says which error it met.
      const why = bad.map(
        (o) =>
          app
            .logs()
            .split("\n")
            .find((l) => l.includes(o.res.headers.get("x-request-id") ?? "?")) ?? o.res.text.slice(0, 200),
      );
      assert.deepEqual(why, [], `${outcomes.length} requests`);
    });

    test("the server stopped for a few seconds: 503 with Retry-After meanwhile, fast; success afterwards; no write lost or doubled", async (t) => {
      let stop = false;
      const loaded = load(() => stop);
      const outage = (async () => {
        await sleep(500);
        await pgServer("pause");
        await sleep(3000);
        await pgServer("resume");
        // Until a read succeeds again (the pool reconnects on demand), then a moment of normal traffic.
        const deadline = Date.now() + 15_000;
        for (;;) {
          const res = await app.api("GET", customerPath(stack.programId, emails[0]!));
          if (res.status === 200) break;
          assert.ok(Date.now() < deadline, `no success within 15 s of the restart: ${res.status} ${res.text}`);
          await sleep(100);
        }
        await sleep(500);
        stop = true;
      })();
      const outcomes = await loaded;
      await outage;

      const statuses = new Set(outcomes.map((o) => o.status));
      for (const s of statuses) assert.ok(s === 200 || s === 503, `only 200 or 503 (never 401, 500): got ${s}`);
      const refused = outcomes.filter((o) => o.status === 503);
      assert.ok(refused.length > 0, "some requests met the outage");
      for (const o of refused) {
        assert.equal(o.res.json?.code, "service_unavailable", o.res.text);
        assert.match(o.res.headers.get("content-type") ?? "", /^application\/problem\+json/);
        assert.match(o.res.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
        assert.ok(o.res.headers.get("x-request-id"));
      }
      const slowest = Math.max(...refused.map((o) => o.ms));
      const median = refused.map((o) => o.ms).sort((a, b) => a - b)[Math.floor(refused.length / 2)]!;
      t.diagnostic(
        `${outcomes.length} requests, ${refused.length} answered 503: median ${Math.round(median)} ms, slowest ${Math.round(slowest)} ms`,
      );
      assert.ok(slowest < 2500, `a 503 took ${Math.round(slowest)} ms: it must not wait for the pool`);

      // The client's part: every write that was not answered 200 is sent again with its key until it is.
      const deadline = Date.now() + 20_000;
      for (const w of writes.values()) {
        while (!w.done) {
          const res = await increase(w);
          if (res.status === 200) w.done = true;
          else {
            assert.equal(res.status, 503, res.text);
            assert.ok(Date.now() < deadline, `write ${w.key} still refused`);
            await sleep(200);
          }
        }
      }

      // Exactly once: per customer, the balance is the sum of the writes sent, of its ledger, and one entry per key.
      const rows = await stack.query<{ email: string; balance: number; ledger: string; entries: string; keys: string }>(
        `SELECT c.email, l.balance, COALESCE(SUM(e.points), 0) AS ledger, COUNT(e.id) AS entries, COUNT(DISTINCT e."idempotencyKey") AS keys
         FROM "Customer" c JOIN "LoyaltyData" l ON l."customerId" = c.id LEFT JOIN "LedgerEntry" e ON e."customerId" = c.id
        WHERE c."programId" = $1 GROUP BY c.email, l.balance ORDER BY c.email`,
        [stack.programId],
      );
      const expected = new Map<string, { points: number; count: number }>();
      for (const w of writes.values()) {
        const e = expected.get(w.email) ?? { points: 0, count: 0 };
        expected.set(w.email, { points: e.points + w.points, count: e.count + 1 });
      }
      assert.equal(rows.length, CUSTOMERS);
      for (const r of rows) {
        const e = expected.get(r.email) ?? { points: 0, count: 0 };
        assert.deepEqual(
          { balance: r.balance, ledger: Number(r.ledger), entries: Number(r.entries), keys: Number(r.keys) },
          { balance: e.points, ledger: e.points, entries: e.count, keys: e.count },
          r.email,
        );
      }
    });
  },
);
