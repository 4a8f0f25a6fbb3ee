/**
 * The built app on a fresh database with the fixtures of the points tests: server.ts's fixtures plus custom
 * earning flows and points expiry, all made with the admin CLI BEFORE the app starts (one process at a time may
 * open a PGlite directory). The app can be stopped to run the CLI or SQL (PGlite) and started again on the same
 * database.
 *
 *   const stack = await pointsStack(backend);   // migrated, fixtures made
 *   await stack.start();
 *   await stack.api("POST", `/v1/programs/${stack.programId}/customers/x%40y.io/balance/increase`, { body: { points: 5 } });
 *   await stack.close();
 *
 * PGlite: the migrated, fixture-filled directory is built once per migration history / CLI / fixture list and copied
 * for each stack (migrating and ~20 CLI runs take half a minute). PostgreSQL (TEST_DATABASE_URL): a new database
 * `t_<random>` per stack, dropped by close().
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { apiClient, cli, freePort, requireBuild, ROOT, type Api, type Backend } from "./server";

export { BACKENDS, type Api, type ApiOptions, type ApiResponse, type Backend } from "./server";

/** Program A's points expire this many months after they are earned. */
export const EXPIRY_MONTHS = 12;

/** Program A's tiers, lowest first: [name, requiredPoints, factor]. Created in another order (Silver, Gold, Bronze). */
export const TIER_SPECS = [
  ["Bronze", 0, 1],
  ["Silver", 1000, 1.25],
  ["Gold", 5000, 1.5],
] as const;

/** Program A's earning flows, as CLI flags. */
export const FLOW_SPECS = {
  /** Fixed points. */
  visit: ["--points", "10", "--name", "Store visit"],
  /** 0.5 point per unit of `amount`, × the tier factor, rounded down. */
  purchase: ["--points-per-unit", "0.5", "--param", "amount"],
  /** 10 points, at most 25 a UTC day. */
  daily: ["--points", "10", "--cap-per-day", "25"],
  /** 10 points, at most 15 in all. */
  limited: ["--points", "10", "--cap-total", "15"],
  /** 50 points, once per customer. */
  welcome: ["--points", "50", "--once"],
} as const;
export type FlowKey = keyof typeof FLOW_SPECS;

export interface PointsFixtures {
  programId: string;
  tiers: { bronze: string; silver: string; gold: string };
  /** Program A's main key and its id (ledger entries name it as actor `api_key:<id>`). */
  key: string;
  keyId: string;
  /** Another key of program A: idempotency keys are per API key. */
  secondKey: string;
  /** Program B: one tier, its own key, no points expiry and a `visit` flow worth 99. */
  otherProgramId: string;
  otherKey: string;
  otherTierId: string;
}

export interface PointsStack extends PointsFixtures {
  backend: Backend;
  /** The environment of the app and the CLI. */
  env: NodeJS.ProcessEnv;
  /** Runs the admin CLI; its JSON result. PGlite: only while the app is stopped. */
  loyalty(...args: string[]): Promise<Record<string, unknown>>;
  /** Starts the app (`next start`) and waits until it answers. */
  start(extraEnv?: Record<string, string>): Promise<void>;
  /** A JSON client with program A's key by default; only while the app runs. */
  api: Api;
  baseUrl(): string;
  /** SQL on the test database. PostgreSQL: at any time. PGlite: only while the app is stopped. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The app's output so far. */
  logs(): string;
  stop(): Promise<void>;
  /** stop(), then deletes the database. Idempotent. */
  close(): Promise<void>;
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extra };
  delete env.NODE_TEST_CONTEXT; // set by node:test in test files; not for the app or the CLI
  delete env.NODE_OPTIONS;
  return env;
}

function migrate(env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "db:migrate"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`npm run db:migrate failed (exit ${code}):\n${out}`))));
  });
}

const str = (v: unknown, what: string): string => {
  if (typeof v !== "string" || !v) throw new Error(`CLI output has no ${what}`);
  return v;
};

async function makeFixtures(env: NodeJS.ProcessEnv, parallel: boolean): Promise<PointsFixtures> {
  const loyalty = (...args: string[]) => cli(env, ...args);
  const all = async <T>(tasks: (() => Promise<T>)[]): Promise<T[]> => {
    if (parallel) return Promise.all(tasks.map((t) => t()));
    const out: T[] = [];
    for (const t of tasks) out.push(await t());
    return out;
  };
  const [programId, otherProgramId] = (await all([
    async () => str((await loyalty("program", "create", "--name", "Points A")).programId, "programId"),
    async () => str((await loyalty("program", "create", "--name", "Points B")).programId, "programId"),
  ])) as [string, string];
  const tier = async (program: string, name: string, points: number, factor: number) =>
    str((await loyalty("tier", "create", "--program", program, "--name", name, "--required-points", String(points), "--factor", String(factor))).tierId, "tierId");
  const key = async (program: string, name: string) => {
    const k = await loyalty("apikey", "create", "--program", program, "--name", name, "--rate-limit", "100000");
    return { id: str(k.id, "key id"), key: str(k.key, "key") };
  };
  const order = [1, 2, 0]; // Silver, Gold, Bronze
  const results = await all<unknown>([
    ...order.map((i) => () => tier(programId, TIER_SPECS[i]![0], TIER_SPECS[i]![1], TIER_SPECS[i]![2])),
    () => key(programId, "main"),
    () => key(programId, "second"),
    () => tier(otherProgramId, "Member", 0, 1),
    () => key(otherProgramId, "other"),
    ...Object.entries(FLOW_SPECS).map(([k, flags]) => () => loyalty("earning-flow", "create", "--program", programId, "--key", k, ...flags)),
    () => loyalty("earning-flow", "create", "--program", otherProgramId, "--key", "visit", "--points", "99"),
    () => loyalty("program", "update", "--id", programId, "--points-expiry-months", String(EXPIRY_MONTHS)),
  ]);
  const [silver, gold, bronze, main, second, otherTierId, other] = results as [string, string, string, { id: string; key: string }, { key: string }, string, { key: string }];
  return {
    programId,
    tiers: { bronze, silver, gold },
    key: main.key,
    keyId: main.id,
    secondKey: second.key,
    otherProgramId,
    otherKey: other.key,
    otherTierId,
  };
}

/** A migrated PGlite directory with the fixtures, built once per migration history, CLI and fixture list. */
async function pgliteTemplate(): Promise<{ dir: string; fixtures: PointsFixtures }> {
  const hash = createHash("sha256");
  const migrations = path.join(ROOT, "prisma/migrations");
  for (const name of readdirSync(migrations).sort()) {
    hash.update(name);
    const file = path.join(migrations, name, "migration.sql");
    if (existsSync(file)) hash.update(readFileSync(file));
  }
  for (const file of ["scripts/cli.ts", "lib/domain/earning-flows.ts", "lib/domain/api-keys.ts", "lib/domain/tiers.ts", "lib/domain/programs.ts"]) {
    hash.update(readFileSync(path.join(ROOT, file)));
  }
  hash.update(JSON.stringify([TIER_SPECS, FLOW_SPECS, EXPIRY_MONTHS, "v1"]));
  const dir = path.join(os.tmpdir(), `loyalty-points-template-${hash.digest("hex").slice(0, 12)}`);
  const fixturesFile = path.join(dir, "fixtures.json");
  if (!existsSync(fixturesFile)) {
    const building = mkdtempSync(path.join(os.tmpdir(), "loyalty-points-building-"));
    try {
      const env = childEnv({ DATABASE_URL: "", PGLITE_DIR: path.join(building, "db") });
      await migrate(env);
      const fixtures = await makeFixtures(env, false);
      writeFileSync(path.join(building, "fixtures.json"), JSON.stringify(fixtures));
      renameSync(building, dir); // atomic; if a concurrent builder won, its equivalent copy stays
    } catch (err) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(fixturesFile)) throw err;
    }
  }
  return { dir: path.join(dir, "db"), fixtures: JSON.parse(readFileSync(fixturesFile, "utf8")) };
}

export async function pointsStack(backend: Backend): Promise<PointsStack> {
  requireBuild();
  let env: NodeJS.ProcessEnv;
  let fixtures: PointsFixtures;
  let drop: () => Promise<void>;
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
    drop = async () => {
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
      fixtures = await makeFixtures(env, true);
    } catch (err) {
      await drop().catch(() => {});
      throw err;
    }
  } else {
    const template = await pgliteTemplate();
    const root = mkdtempSync(path.join(os.tmpdir(), "loyalty-points-"));
    pgliteDir = path.join(root, "db");
    cpSync(template.dir, pgliteDir, { recursive: true });
    env = childEnv({ DATABASE_URL: "", PGLITE_DIR: pgliteDir });
    fixtures = template.fixtures;
    drop = async () => rmSync(root, { recursive: true, force: true });
  }

  let child: ChildProcess | null = null;
  let client: Api | null = null;
  let base = "";
  let output = "";
  let closed = false;
  const busy = (what: string) => {
    if (backend === "pglite" && child) throw new Error(`PGlite: ${what} only while the app is stopped`);
  };

  const stop = async () => {
    const running = child;
    child = null;
    client = null;
    if (!running) return;
    if (process.env.TEST_SHOW_LOGS === "1") console.error(output);
    if (running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((r) => running.once("exit", r));
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-running.pid!, signal); // the whole group: next start forks its server
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
    if (backend === "pglite") await new Promise((r) => setTimeout(r, 200)); // let the OS release the directory
  };

  const stack: PointsStack = {
    backend,
    env,
    ...fixtures,
    async loyalty(...args) {
      busy("the CLI runs");
      return cli(env, ...args);
    },
    async start(extraEnv = {}) {
      if (child) throw new Error("the app is already running");
      const port = await freePort();
      output = "";
      const spawned = spawn(path.join(ROOT, "node_modules/.bin/next"), ["start", "-p", String(port), "-H", "127.0.0.1"], {
        cwd: ROOT,
        env: { ...env, LOYALTY_JOBS: "off", ...extraEnv },
        detached: true, // its own process group, stopped as a whole
        stdio: ["ignore", "pipe", "pipe"],
      });
      child = spawned;
      spawned.stdout!.on("data", (d) => (output += d));
      spawned.stderr!.on("data", (d) => (output += d));
      base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (spawned.exitCode !== null) {
          await stop();
          throw new Error(`next start exited early (code ${spawned.exitCode}):\n${output}`);
        }
        try {
          const res = await fetch(`${base}/v1/openapi.json`);
          await res.arrayBuffer();
          if (res.ok) break;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) {
          await stop();
          throw new Error(`next start did not answer within 60 s:\n${output}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      client = apiClient(base, fixtures.key);
    },
    api: (method, pathname, options) => {
      if (!client) throw new Error("the app is not running");
      return client(method, pathname, options);
    },
    baseUrl: () => base,
    async query<T>(sql: string, params: unknown[] = []) {
      if (backend === "postgres") {
        if (!pool) {
          pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 4 });
          pool.on("error", () => {}); // idle clients are cut when the database is dropped
        }
        return (await pool.query(sql, params)).rows as T[];
      }
      busy("SQL runs");
      const { PGlite } = await import("@electric-sql/pglite");
      const db = await PGlite.create(pgliteDir!);
      try {
        return (await db.query<T>(sql, params)).rows;
      } finally {
        await db.close();
      }
    },
    logs: () => output,
    stop,
    async close() {
      if (closed) return;
      closed = true;
      await stop();
      await drop();
    },
  };
  return stack;
}

/** `/v1/programs/{programId}/customers/{email}` with the e-mail URL-encoded. */
export const customerPath = (programId: string, email: string) => `/v1/programs/${programId}/customers/${encodeURIComponent(email)}`;
