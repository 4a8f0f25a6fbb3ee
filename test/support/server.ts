/**
 * The real built app (`next start`) on a fresh database, for the HTTP tests of the /v1 API.
 *
 *  - PGlite (always): a new temp directory in PGLITE_DIR.
 *  - PostgreSQL (when TEST_DATABASE_URL is set): a new database `t_<random>` on that server, dropped afterwards.
 *
 * Fixtures are made the way an operator makes them — `npm run db:migrate`, then the admin CLI — and BEFORE the
 * server starts, because only one process at a time may open a PGlite directory.
 *
 *   for (const backend of BACKENDS) describe(`… [${backend}]`, () => {
 *     let app: TestServer;
 *     before(async () => (app = await startServer(backend)));
 *     after(() => app?.close());
 *     test("…", async () => { const res = await app.api("GET", `/v1/programs/${app.programId}/customers/x%40y.io`); });
 *   });
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export type Backend = "pglite" | "postgres";

export const ROOT = path.resolve(import.meta.dirname, "../..");

/** Integration tests run on PGlite always, and on PostgreSQL too when TEST_DATABASE_URL is set. */
export const BACKENDS: Backend[] = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

/** Rate limit of every fixture key except `limitedKey` (requests per second). */
export const HIGH_RATE_LIMIT = 100_000;
/**
 * `limitedKey` refills at 1 request per second; lib/domain/api-keys.ts gives a key created without an explicit burst
 * a burst of max(100, 2 × rate) = 100 requests.
 */
export const LIMITED_RATE = 1;
export const LIMITED_BURST = 100;

export interface Fixtures {
  /** Program A: Bronze (0 points), Silver (1000), Gold (5000), created in the order Silver, Bronze, Gold. */
  programId: string;
  tiers: { bronze: string; silver: string; gold: string };
  /** Program A's key (high rate limit). */
  key: string;
  keyId: string;
  /** A second key of program A (high rate limit): idempotency keys are scoped per API key. */
  secondKey: string;
  /** Program A's key, revoked before the server started. */
  revokedKey: string;
  /** Program A's key with 1 request/s and a burst of 100. */
  limitedKey: string;
  limitedKeyId: string;
  /** Program B, with its own key and one tier. */
  otherProgramId: string;
  otherKey: string;
  otherTierId: string;
}

export interface ApiOptions {
  /** The `api-key` header. Default: program A's key; null sends none. */
  key?: string | null;
  /** JSON-serialised unless it is a string (sent as is). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The raw body. */
  text: string;
  /** The body parsed as JSON, or null when it is empty or not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export type Api = (method: string, pathname: string, options?: ApiOptions) => Promise<ApiResponse>;

export interface TestServer extends Fixtures {
  backend: Backend;
  baseUrl: string;
  api: Api;
  /**
   * SQL on the test database, for checks the API cannot make (row counts). PostgreSQL: at any time. PGlite: only
   * after stop(), since the server holds the directory while it runs.
   */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The server's stdout and stderr so far. */
  logs(): string;
  /** Stops the server (its whole process group). Idempotent. */
  stop(): Promise<void>;
  /** stop(), then deletes the database. Idempotent. */
  close(): Promise<void>;
}

/** The environment for our child processes: the parent's, minus what would confuse them. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extra };
  delete env.NODE_TEST_CONTEXT; // set by node:test in test files; not for the app or the CLI
  delete env.NODE_OPTIONS;
  return env;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function migrate(env: NodeJS.ProcessEnv): Promise<void> {
  const r = await run("npm", ["run", "--silent", "db:migrate"], env);
  if (r.code !== 0) throw new Error(`npm run db:migrate failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
}

/** `npm run --silent loyalty -- <args>`; its last stdout line, parsed as JSON. Throws when the CLI reports an error. */
export async function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Record<string, unknown>> {
  const r = await run("npm", ["run", "--silent", "loyalty", "--", ...args], env);
  const last = r.stdout.trim().split("\n").at(-1) ?? "";
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(last);
  } catch {
    throw new Error(`loyalty ${args.join(" ")}: no JSON on the last stdout line (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  if (r.code !== 0 || "error" in json) throw new Error(`loyalty ${args.join(" ")} failed (exit ${r.code}): ${last}\n${r.stderr}`);
  return json;
}

const str = (v: unknown, what: string): string => {
  if (typeof v !== "string" || !v) throw new Error(`CLI output has no ${what}`);
  return v;
};

async function createFixtures(env: NodeJS.ProcessEnv, parallel: boolean): Promise<Fixtures> {
  const loyalty = (...args: string[]) => cli(env, ...args);
  // PGlite admits one process per directory, so its CLI calls go one by one; a PostgreSQL server takes them together.
  const together = async <T extends unknown[]>(...tasks: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> => {
    if (parallel) return (await Promise.all(tasks.map((t) => t()))) as T;
    const out: unknown[] = [];
    for (const t of tasks) out.push(await t());
    return out as T;
  };
  const program = async (name: string) => str((await loyalty("program", "create", "--name", name)).programId, "programId");
  const tier = async (programId: string, name: string, points: number, factor: number) =>
    str(
      (await loyalty("tier", "create", "--program", programId, "--name", name, "--required-points", String(points), "--factor", String(factor)))
        .tierId,
      "tierId",
    );
  const apiKey = async (programId: string, name: string, rate: number) => {
    const k = await loyalty("apikey", "create", "--program", programId, "--name", name, "--rate-limit", String(rate));
    return { id: str(k.id, "key id"), key: str(k.key, "key") };
  };
  const [programId, otherProgramId] = await together(
    () => program("Program A"),
    () => program("Program B"),
  );
  const [tiers, main, second, revoked, limited, otherTierId, other] = await together(
    // One after the other and not in requiredPoints order, so "the base tier" must mean the lowest requiredPoints,
    // not the first row created.
    async () => {
      const silver = await tier(programId, "Silver", 1000, 1.25);
      const bronze = await tier(programId, "Bronze", 0, 1);
      const gold = await tier(programId, "Gold", 5000, 1.5);
      return { bronze, silver, gold };
    },
    () => apiKey(programId, "main", HIGH_RATE_LIMIT),
    () => apiKey(programId, "second", HIGH_RATE_LIMIT),
    () => apiKey(programId, "revoked", HIGH_RATE_LIMIT),
    () => apiKey(programId, "limited", LIMITED_RATE),
    () => tier(otherProgramId, "Member", 0, 1),
    () => apiKey(otherProgramId, "other", HIGH_RATE_LIMIT),
  );
  const revocation = await loyalty("apikey", "revoke", "--id", revoked.id);
  if (!revocation.revokedAt) throw new Error(`apikey revoke did not revoke: ${JSON.stringify(revocation)}`);
  return {
    programId,
    tiers,
    key: main.key,
    keyId: main.id,
    secondKey: second.key,
    revokedKey: revoked.key,
    limitedKey: limited.key,
    limitedKeyId: limited.id,
    otherProgramId,
    otherKey: other.key,
    otherTierId,
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A JSON client for the app at `baseUrl`; `defaultKey` is sent as `api-key` unless the call says otherwise. */
export function apiClient(baseUrl: string, defaultKey?: string): Api {
  return async (method, pathname, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? defaultKey : options.key;
    if (key) headers["api-key"] = key;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
    }
    const res = await fetch(baseUrl + pathname, { method, headers, body });
    const text = await res.text();
    let json: unknown = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}

interface Database {
  env: NodeJS.ProcessEnv;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

async function pgliteDatabase(): Promise<Database & { dir: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "loyalty-it-"));
  return {
    dir,
    env: childEnv({ DATABASE_URL: "", PGLITE_DIR: dir }),
    async query<T>(sql: string, params: unknown[] = []) {
      const { PGlite } = await import("@electric-sql/pglite");
      const db = await PGlite.create(dir);
      try {
        return (await db.query<T>(sql, params)).rows;
      } finally {
        await db.close();
      }
    },
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresDatabase(adminUrl: string): Promise<Database> {
  const name = `t_${randomBytes(8).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let pool: pg.Pool | null = null;
  return {
    env: childEnv({ DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: "20" }),
    async query<T>(sql: string, params: unknown[] = []) {
      if (!pool) {
        pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
        pool.on("error", () => {}); // idle clients are cut when the database is dropped
      }
      return (await pool.query(sql, params)).rows as T[];
    },
    async drop() {
      await (pool as pg.Pool | null)?.end();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export function requireBuild(): void {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    throw new Error(
      "No production build of the app (.next/BUILD_ID is missing): run `NEXT_TELEMETRY_DISABLED=1 npx next build` " +
        "(or `npm run build`) before the integration tests. `npm test` builds before it runs them.",
    );
  }
}

/** Migrates a fresh database, creates the fixtures with the CLI, starts `next start` on it and waits for it. */
export async function startServer(backend: Backend, extraEnv: Record<string, string> = {}): Promise<TestServer> {
  requireBuild();
  let database: Database;
  if (backend === "postgres") {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
    database = await postgresDatabase(adminUrl);
  } else {
    database = await pgliteDatabase();
  }
  let child: ChildProcess | null = null;
  let output = "";
  let stopped = false;
  let closed = false;

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (process.env.TEST_SHOW_LOGS === "1") console.error(output);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child!.once("exit", r));
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child!.pid!, signal); // the whole group: next start forks its server
      } catch {
        // already gone
      }
    };
    kill("SIGTERM");
    const done = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
    if (!done) {
      kill("SIGKILL");
      await exited;
    }
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    await stop();
    await database.drop();
  };

  try {
    await migrate(database.env);
    const fixtures = await createFixtures(database.env, backend === "postgres");
    const port = await freePort();
    child = spawn(path.join(ROOT, "node_modules/.bin/next"), ["start", "-p", String(port), "-H", "127.0.0.1"], {
      cwd: ROOT,
      env: { ...database.env, LOYALTY_JOBS: "off", ...extraEnv },
      detached: true, // its own process group, killed as a whole
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    const baseUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`next start exited early (code ${child.exitCode}):\n${output}`);
      try {
        const res = await fetch(`${baseUrl}/v1/openapi.json`);
        await res.arrayBuffer();
        if (res.ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`next start did not answer within 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return {
      backend,
      baseUrl,
      ...fixtures,
      api: apiClient(baseUrl, fixtures.key),
      query: async <T>(sql: string, params?: unknown[]) => {
        if (backend === "pglite" && !stopped) throw new Error("PGlite can be queried only after stop()");
        return database.query<T>(sql, params);
      },
      logs: () => output,
      stop,
      close,
    };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}
