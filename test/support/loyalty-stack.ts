/**
 * A test database with the built app on it, for the rewards, coupons, tokens, notifications, deletion and
 * webhook tests. Unlike startServer (server.ts), it lets a test run its own CLI fixtures before the first
 * server starts, stop and start the app on the same database (PGlite: to read it, or to run the CLI, since one
 * process at a time may open a PGlite directory) and run several app instances on one PostgreSQL database.
 *
 *   const stack = await createStack(backend);
 *   const rewardId = (await stack.loyalty("reward", "create", "--program", stack.programId, ...)).rewardId;
 *   const app = await stack.start({ LOYALTY_JOBS: "on" });
 *   await app.api("GET", `/v1/programs/${stack.programId}/rewards`);
 *   await stack.close();
 *
 * Reuses server.ts's client, port and build helpers; the fixtures are made with the admin CLI as an operator would.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { apiClient, freePort, requireBuild, ROOT, type Api, type Backend } from "./server";

export { BACKENDS, type Api, type ApiResponse, type Backend } from "./server";

export interface StackFixtures {
  /** Program A: tiers Bronze (0, ×1), Silver (1000, ×1.25), Gold (5000, ×1.5); `key` has a high rate limit. */
  programId: string;
  tiers: { bronze: string; silver: string; gold: string };
  key: string;
  /** Program B and its key. */
  otherProgramId: string;
  otherKey: string;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The last stdout line as JSON (null when it is not JSON). */
  json: Record<string, unknown> | null;
  ms: number;
}

export interface AppInstance {
  baseUrl: string;
  /** A client sending program A's key by default. */
  api: Api;
  logs(): string;
  stop(): Promise<void>;
}

export interface Stack extends StackFixtures {
  backend: Backend;
  /** The environment of the app and the CLI (DATABASE_URL or PGLITE_DIR). */
  env: NodeJS.ProcessEnv;
  /** Runs the admin CLI; resolves its output whatever the exit code. PGlite: only while no app runs. */
  cliRun(args: string[], extraEnv?: Record<string, string>): Promise<CliRun>;
  /** Runs the admin CLI and returns its JSON result; throws when it fails. */
  loyalty(...args: string[]): Promise<Record<string, unknown>>;
  /** Runs the tasks (CLI fixtures) at once on PostgreSQL, one after the other on PGlite. */
  together<T>(...tasks: (() => Promise<T>)[]): Promise<T[]>;
  /** Starts an app instance (`next start`). PGlite: one at a time. */
  start(extraEnv?: Record<string, string>): Promise<AppInstance>;
  /** Stops every running instance. */
  stopAll(): Promise<void>;
  /** SQL on the database. PostgreSQL: at any time. PGlite: only while no app runs. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Stops everything and drops the database. Idempotent. */
  close(): Promise<void>;
}

const NODE_FLAGS = ["--no-warnings", "--import", "tsx"];

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extra };
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

const cliArgs = (args: string[]) => [...NODE_FLAGS, "scripts/cli.ts", ...args];

async function migrate(env: NodeJS.ProcessEnv) {
  const r = await runNode(["--experimental-wasm-modules", ...NODE_FLAGS, "scripts/db.ts", "migrate"], env);
  if (r.code !== 0) throw new Error(`db:migrate failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
}

async function loyaltyWith(env: NodeJS.ProcessEnv, args: string[]): Promise<Record<string, unknown>> {
  const r = await runNode(cliArgs(args), env);
  if (r.code !== 0 || !r.json || "error" in r.json) {
    throw new Error(`loyalty ${args.join(" ")} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.json;
}

const str = (v: unknown, what: string): string => {
  if (typeof v !== "string" || !v) throw new Error(`CLI output has no ${what}`);
  return v;
};

async function baseFixtures(env: NodeJS.ProcessEnv, parallel: boolean): Promise<StackFixtures> {
  const loyalty = (...args: string[]) => loyaltyWith(env, args);
  const all = async <T>(tasks: (() => Promise<T>)[]): Promise<T[]> => {
    if (parallel) return Promise.all(tasks.map((t) => t()));
    const out: T[] = [];
    for (const t of tasks) out.push(await t());
    return out;
  };
  const [programId, otherProgramId] = await all([
    async () => str((await loyalty("program", "create", "--name", "Program A")).programId, "programId"),
    async () => str((await loyalty("program", "create", "--name", "Program B")).programId, "programId"),
  ]);
  const tier = async (name: string, points: number, factor: number) =>
    str((await loyalty("tier", "create", "--program", programId!, "--name", name, "--required-points", String(points), "--factor", String(factor))).tierId, "tierId");
  const key = async (program: string) => str((await loyalty("apikey", "create", "--program", program, "--name", "tests", "--rate-limit", "100000")).key, "key");
  const [bronze, silver, gold, keyA, keyB] = await all([
    () => tier("Bronze", 0, 1),
    () => tier("Silver", 1000, 1.25),
    () => tier("Gold", 5000, 1.5),
    () => key(programId!),
    () => key(otherProgramId!),
  ]);
  return { programId: programId!, otherProgramId: otherProgramId!, tiers: { bronze: bronze!, silver: silver!, gold: gold! }, key: keyA!, otherKey: keyB! };
}

/**
 * A migrated PGlite directory with the base fixtures, built once per migration history (and CLI) and copied for
 * each stack: migrating PGlite and running the CLI against it take seconds per step.
 */
async function pgliteTemplate(): Promise<{ dir: string; fixtures: StackFixtures }> {
  const hash = createHash("sha256");
  const migrations = path.join(ROOT, "prisma/migrations");
  for (const name of readdirSync(migrations).sort()) {
    hash.update(name);
    const file = path.join(migrations, name, "migration.sql");
    if (existsSync(file)) hash.update(readFileSync(file));
  }
  hash.update(readFileSync(path.join(ROOT, "scripts/cli.ts")));
  const dir = path.join(os.tmpdir(), `loyalty-stack-template-${hash.digest("hex").slice(0, 12)}`);
  const fixturesFile = path.join(dir, "fixtures.json");
  if (!existsSync(fixturesFile)) {
    const building = mkdtempSync(path.join(os.tmpdir(), "loyalty-stack-building-"));
    const env = childEnv({ DATABASE_URL: "", PGLITE_DIR: path.join(building, "db") });
    try {
      await migrate(env);
      writeFileSync(path.join(building, "fixtures.json"), JSON.stringify(await baseFixtures(env, false)));
    } catch (err) {
      rmSync(building, { recursive: true, force: true });
      throw err;
    }
    try {
      renameSync(building, dir); // atomic: a concurrent builder's copy wins, both are equivalent
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
  }
  return { dir: path.join(dir, "db"), fixtures: JSON.parse(readFileSync(fixturesFile, "utf8")) };
}

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

export async function createStack(backend: Backend): Promise<Stack> {
  requireBuild();
  let env: NodeJS.ProcessEnv;
  let fixtures: StackFixtures;
  let dropDb: () => Promise<void>;
  let pool: pg.Pool | null = null;
  let pgliteDir: string | null = null;

  if (backend === "postgres") {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
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
    env = childEnv({ DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: "20" });
    dropDb = async () => {
      await pool?.end();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    };
    try {
      await migrate(env);
      fixtures = await baseFixtures(env, true);
    } catch (err) {
      await dropDb().catch(() => {});
      throw err;
    }
  } else {
    const template = await pgliteTemplate();
    const root = mkdtempSync(path.join(os.tmpdir(), "loyalty-stack-"));
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

  const stack: Stack = {
    backend,
    env,
    ...fixtures,
    async cliRun(args, extraEnv = {}) {
      pgliteBusy("the CLI runs");
      return runNode(cliArgs(args), { ...env, ...extraEnv });
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
    async close() {
      if (closed) return;
      closed = true;
      await stack.stopAll();
      await dropDb();
    },
  };
  return stack;
}

/** Polls `check` every 100 ms until it holds, or fails after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const emailPath = (programId: string, email: string) => `/v1/programs/${programId}/customers/${encodeURIComponent(email)}`;

let counter = 0;
/** A fresh lower-case e-mail per call. */
export const newEmail = (label: string) => `${label}.${process.pid}.${++counter}.${randomBytes(3).toString("hex")}@example.com`;
