/**
 * The one harness of the HTTP tests: a fresh database with the built app (`next start`) on it.
 *
 *  - PGlite (always): a temp directory, copied from a template that was migrated and filled with the fixtures once
 *    per migration history / CLI / fixture code (migrating PGlite and running the CLI take seconds per step).
 *  - PostgreSQL (when TEST_DATABASE_URL is set): a new database `t_<random>` on that server, dropped by close().
 *
 * Fixtures are made the way an operator makes them — `db:migrate`, then the admin CLI — and before the first app
 * instance starts, because only one process at a time may open a PGlite directory. A stack can stop and start the
 * app on the same database (PGlite: to read it or to run the CLI) and run several instances on one PostgreSQL
 * database. server.ts, loyalty-stack.ts and points-fixtures.ts each define their fixtures on top of it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openAdapter } from "@/lib/db/adapter";
import { PrismaClient } from "@/lib/generated/prisma/client";

export type Backend = "pglite" | "postgres";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Integration tests run on PGlite always, and on PostgreSQL too when TEST_DATABASE_URL is set. */
export const BACKENDS: Backend[] = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

export interface ApiOptions {
  /** The `api-key` header. Default: the client's key; null sends none. */
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

/** A JSON client for the app at `baseUrl`; `defaultKey` is sent as `api-key` unless the call says otherwise. */
function apiClient(baseUrl: string, defaultKey?: string): Api {
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function requireBuild(): void {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    throw new Error(
      "No production build of the app (.next/BUILD_ID is missing): run `npm run build` before the integration tests. " +
        "`npm test` builds before it runs them.",
    );
  }
}

/** Polls `check` every 100 ms until it holds, or fails after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The admin CLI and migrations, as child processes

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The last stdout line as JSON (null when it is not JSON). */
  json: Record<string, unknown> | null;
  ms: number;
}

const NODE_FLAGS = ["--no-warnings", "--import", "tsx"];

/** The environment of our child processes: the parent's, minus what would confuse them. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // The webhook receivers of the tests listen on http://127.0.0.1: allowed only with this development setting.
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", LOYALTY_ALLOW_HTTP_WEBHOOKS: "1", ...extra };
  delete env.NODE_TEST_CONTEXT; // set by node:test in test files; not for the app or the CLI
  delete env.NODE_OPTIONS;
  return env;
}

function runNode(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 180_000): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
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
      let json: Record<string, unknown> | null = null;
      try {
        json = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
      } catch {
        json = null;
      }
      resolve({ code, stdout, stderr, json, ms: Date.now() - started });
    });
  });
}

/** `npm run loyalty -- <args>` without npm in between (the same command line). */
const cliRun = (env: NodeJS.ProcessEnv, args: string[]) => runNode([...NODE_FLAGS, "scripts/cli.ts", ...args], env);

async function migrate(env: NodeJS.ProcessEnv) {
  const r = await runNode(["--experimental-wasm-modules", ...NODE_FLAGS, "scripts/db.ts", "migrate"], env);
  if (r.code !== 0) throw new Error(`db:migrate failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
}

async function loyaltyWith(env: NodeJS.ProcessEnv, args: string[]): Promise<Record<string, unknown>> {
  const r = await cliRun(env, args);
  if (r.code !== 0 || !r.json || "error" in r.json) {
    throw new Error(`loyalty ${args.join(" ")} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.json;
}

/** A string field of a CLI result, or a clear error. */
export const cliString = (v: unknown, what: string): string => {
  if (typeof v !== "string" || !v) throw new Error(`CLI output has no ${what}`);
  return v;
};

// ---------------------------------------------------------------------------------------------------------------
// Fixtures

/** What a fixture maker may use: the CLI, and `together`, which runs tasks at once on PostgreSQL, in turn on PGlite. */
export interface FixtureTools {
  loyalty(...args: string[]): Promise<Record<string, unknown>>;
  together<T extends unknown[]>(...tasks: { [K in keyof T]: () => Promise<T[K]> }): Promise<T>;
}

export interface FixtureSpec<F> {
  /** Names the PGlite template of these fixtures. */
  name: string;
  /** Files (from the repo root) whose content the fixtures depend on, besides the migrations and the CLI. */
  dependsOn?: string[];
  make(tools: FixtureTools): Promise<F>;
}

function toolsFor(env: NodeJS.ProcessEnv, parallel: boolean): FixtureTools {
  return {
    loyalty: (...args) => loyaltyWith(env, args),
    together: async <T extends unknown[]>(...tasks: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> => {
      if (parallel) return (await Promise.all(tasks.map((t) => t()))) as T;
      const out: unknown[] = [];
      for (const t of tasks) out.push(await t());
      return out as T;
    },
  };
}

/** A migrated PGlite directory with the fixtures, built once per migration history, CLI and fixture code. */
async function pgliteTemplate<F>(spec: FixtureSpec<F>): Promise<{ dir: string; fixtures: F }> {
  const hash = createHash("sha256");
  const migrations = path.join(ROOT, "prisma/migrations");
  for (const name of readdirSync(migrations).sort()) {
    hash.update(name);
    const file = path.join(migrations, name, "migration.sql");
    if (existsSync(file)) hash.update(readFileSync(file));
  }
  for (const file of ["scripts/cli.ts", ...(spec.dependsOn ?? [])]) hash.update(readFileSync(path.join(ROOT, file)));
  hash.update(spec.make.toString());
  const dir = path.join(os.tmpdir(), `loyalty-${spec.name}-template-${hash.digest("hex").slice(0, 12)}`);
  const fixturesFile = path.join(dir, "fixtures.json");
  if (!existsSync(fixturesFile)) {
    const building = mkdtempSync(path.join(os.tmpdir(), `loyalty-${spec.name}-building-`));
    try {
      const env = childEnv({ DATABASE_URL: "", PGLITE_DIR: path.join(building, "db") });
      await migrate(env);
      writeFileSync(path.join(building, "fixtures.json"), JSON.stringify(await spec.make(toolsFor(env, false))));
      renameSync(building, dir); // atomic: if a concurrent builder won, its equivalent copy stays
    } catch (err) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(fixturesFile)) throw err;
    }
  }
  return { dir: path.join(dir, "db"), fixtures: JSON.parse(readFileSync(fixturesFile, "utf8")) };
}

// ---------------------------------------------------------------------------------------------------------------
// The stack

export interface AppInstance {
  baseUrl: string;
  /** A client sending the fixtures' `key` by default. */
  api: Api;
  logs(): string;
  stop(): Promise<void>;
}

export type Stack<F> = F & {
  backend: Backend;
  /** The environment of the app and the CLI (DATABASE_URL or PGLITE_DIR). */
  env: NodeJS.ProcessEnv;
  /** Runs the admin CLI; resolves its output whatever the exit code. PGlite: only while no app runs. */
  cliRun(args: string[], extraEnv?: Record<string, string>): Promise<CliRun>;
  /** Runs the admin CLI and returns its JSON result; throws when it fails. PGlite: only while no app runs. */
  loyalty(...args: string[]): Promise<Record<string, unknown>>;
  /** Runs the tasks at once on PostgreSQL, one after the other on PGlite. */
  together<T>(...tasks: (() => Promise<T>)[]): Promise<T[]>;
  /** Starts an app instance (`next start`, jobs off unless extraEnv says otherwise). PGlite: one at a time. */
  start(extraEnv?: Record<string, string>): Promise<AppInstance>;
  /** Stops every running instance. */
  stopAll(): Promise<void>;
  /** SQL on the database. PostgreSQL: at any time. PGlite: only while no app runs. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `fn` with a Prisma client on the database (domain-level fixtures), then closes it. PGlite: only while no app runs. */
  withPrisma<T>(fn: (prisma: PrismaClient) => Promise<T>): Promise<T>;
  /** Stops everything and drops the database. Idempotent. */
  close(): Promise<void>;
};

class EarlyExit extends Error {}

/** Whether any process of the group led by `pid` is still running. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function postgresDatabase(adminUrl: string) {
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
  const drop = async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  };
  return { url: url.toString(), drop };
}

/** A migrated database and nothing else, for tests that make their fixtures through the domain layer (withPrisma). */
export const MIGRATED_ONLY: FixtureSpec<{ key?: string }> = { name: "migrated", make: async () => ({}) };

/** A fresh database with `spec`'s fixtures; no app runs until `start()`. */
export async function openStack<F extends { key?: string }>(backend: Backend, spec: FixtureSpec<F>): Promise<Stack<F>> {
  requireBuild();
  let env: NodeJS.ProcessEnv;
  let fixtures: F;
  let dropDb: () => Promise<void>;
  let pool: pg.Pool | null = null;
  let pgliteDir: string | null = null;

  if (backend === "postgres") {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
    const database = await postgresDatabase(adminUrl);
    env = childEnv({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: "20" });
    dropDb = async () => {
      await pool?.end();
      await database.drop();
    };
    try {
      await migrate(env);
      fixtures = await spec.make(toolsFor(env, true));
    } catch (err) {
      await dropDb().catch(() => {});
      throw err;
    }
  } else {
    const template = await pgliteTemplate(spec);
    const root = mkdtempSync(path.join(os.tmpdir(), `loyalty-${spec.name}-`));
    pgliteDir = path.join(root, "db");
    cpSync(template.dir, pgliteDir, { recursive: true });
    env = childEnv({ DATABASE_URL: "", PGLITE_DIR: pgliteDir });
    fixtures = template.fixtures;
    dropDb = async () => rmSync(root, { recursive: true, force: true });
  }

  const running = new Set<AppInstance>();
  let closed = false;
  const pgliteBusy = (what: string) => {
    if (backend === "pglite" && running.size > 0) throw new Error(`PGlite: ${what} only while no app instance runs`);
  };

  async function startOnce(extraEnv: Record<string, string>): Promise<AppInstance> {
    pgliteBusy("another instance starts");
    const port = await freePort();
    let output = "";
    const child: ChildProcess = spawn(path.join(ROOT, "node_modules/.bin/next"), ["start", "-p", String(port), "-H", "127.0.0.1"], {
      cwd: ROOT,
      env: { ...env, LOYALTY_JOBS: "off", ...extraEnv },
      detached: true, // its own process group, stopped as a whole
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    let stopped = false;
    const instance: AppInstance = {
      baseUrl: `http://127.0.0.1:${port}`,
      api: apiClient(`http://127.0.0.1:${port}`, fixtures.key),
      logs: () => output,
      async stop() {
        if (stopped) return;
        stopped = true;
        running.delete(instance);
        if (process.env.TEST_SHOW_LOGS === "1") console.error(output);
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((r) => child.once("exit", r));
        const kill = (signal: NodeJS.Signals) => {
          try {
            process.kill(-child.pid!, signal);
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
        // The directory (PGlite) and the port are free once the whole group is gone, not just its leader.
        for (let i = 0; i < 50 && groupAlive(child.pid!); i++) await new Promise((r) => setTimeout(r, 100));
      },
    };
    running.add(instance);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) {
        await instance.stop();
        throw new EarlyExit(`next start exited early (code ${child.exitCode}):\n${output}`);
      }
      try {
        const res = await fetch(`${instance.baseUrl}/v1/openapi.json`);
        await res.arrayBuffer();
        if (res.ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        await instance.stop();
        throw new Error(`next start did not answer within 60 s:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return instance;
  }

  const stack: Stack<F> = {
    ...fixtures,
    backend,
    env,
    async cliRun(args, extraEnv = {}) {
      pgliteBusy("the CLI runs");
      return cliRun({ ...env, ...extraEnv }, args);
    },
    async loyalty(...args) {
      pgliteBusy("the CLI runs");
      return loyaltyWith(env, args);
    },
    async together<T>(...tasks: (() => Promise<T>)[]) {
      if (backend === "postgres") return Promise.all(tasks.map((t) => t()));
      const out: T[] = [];
      for (const t of tasks) out.push(await t());
      return out;
    },
    async start(extraEnv = {}) {
      // A port taken between freePort() and listen() makes next exit at once: try again on another one.
      for (let attempt = 1; ; attempt++) {
        try {
          return await startOnce(extraEnv);
        } catch (err) {
          if (attempt >= 3 || !(err instanceof EarlyExit)) throw err;
        }
      }
    },
    async stopAll() {
      await Promise.all([...running].map((i) => i.stop()));
    },
    async query<T>(sql: string, params: unknown[] = []) {
      if (backend === "postgres") {
        if (!pool) {
          pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 4 });
          pool.on("error", () => {}); // idle clients are cut when the database is dropped
        }
        return (await pool.query(sql, params)).rows as T[];
      }
      pgliteBusy("SQL runs");
      const { PGlite } = await import("@electric-sql/pglite");
      const db = await PGlite.create(pgliteDir!);
      try {
        return (await db.query<T>(sql, params)).rows;
      } finally {
        await db.close();
      }
    },
    async withPrisma<T>(fn: (prisma: PrismaClient) => Promise<T>) {
      pgliteBusy("Prisma runs");
      const opened = await openAdapter(backend === "postgres" ? { kind: "postgres", url: env.DATABASE_URL! } : { kind: "pglite", dir: pgliteDir! });
      const prisma = new PrismaClient({ adapter: opened.factory });
      try {
        return await fn(prisma);
      } finally {
        await prisma.$disconnect();
        await opened.close();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await stack.stopAll();
      await dropDb();
    },
  };
  return stack;
}
