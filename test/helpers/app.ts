/**
 * Starts the real built app (`next start`) on a fresh database for a test file: embedded PGlite always, and a
 * PostgreSQL server when TEST_DATABASE_URL is set. Fixtures are written through the domain layer before the
 * server starts (only one process may open a PGlite directory).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { openAdapter, type DatabaseTarget } from "@/lib/db/adapter";

export type Backend = "pglite" | "postgres";
export const ROOT = path.resolve(import.meta.dirname, "../..");

/** Backends to run integration tests on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const backends: Backend[] = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

function migrate(env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, ["--experimental-wasm-modules", "--no-warnings", "--import", "tsx", "scripts/db.ts", "migrate"], {
    cwd: ROOT,
    env,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`db:migrate failed: ${r.stdout}\n${r.stderr}`);
}

/** A migrated PGlite directory, built once per migration history and copied for each test file. */
function pgliteTemplate(): string {
  const migrations = readdirSync(path.join(ROOT, "prisma/migrations")).sort().join(",");
  const hash = createHash("sha256").update(migrations).digest("hex").slice(0, 12);
  const dir = path.join(ROOT, ".data", `test-template-${hash}`);
  if (!existsSync(path.join(dir, "PG_VERSION"))) {
    rmSync(dir, { recursive: true, force: true });
    const building = `${dir}.building-${process.pid}`;
    mkdirSync(building, { recursive: true });
    migrate({ ...process.env, DATABASE_URL: "", PGLITE_DIR: building });
    try {
      cpSync(building, dir, { recursive: true });
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
  }
  return dir;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface Database {
  backend: Backend;
  target: DatabaseTarget;
  env: NodeJS.ProcessEnv;
  /** Direct SQL on the test database (PostgreSQL only: PGlite is held by the server while it runs). */
  sql?: pg.Pool;
  drop(): Promise<void>;
}

export async function createDatabase(backend: Backend): Promise<Database> {
  if (backend === "pglite") {
    const dir = mkdtempSync(path.join(os.tmpdir(), "loyalty-test-"));
    cpSync(pgliteTemplate(), dir, { recursive: true });
    const env = { ...process.env, DATABASE_URL: "", PGLITE_DIR: dir };
    return { backend, target: { kind: "pglite", dir }, env, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  const name = `t_${randomBytes(6).toString("hex")}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const env = { ...process.env, DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: "20" };
  migrate(env);
  const sql = new pg.Pool({ connectionString: url.toString(), max: 4 });
  sql.on("error", () => {}); // idle clients are cut when the database is dropped
  return {
    backend,
    target: { kind: "postgres", url: url.toString() },
    env,
    sql,
    drop: async () => {
      await sql.end();
      const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Runs `fn` with a Prisma client on the database, then closes it (so the server can open a PGlite dir). */
export async function withPrisma<T>(database: Database, fn: (prisma: PrismaClient) => Promise<T>): Promise<T> {
  const opened = await openAdapter(database.target);
  const prisma = new PrismaClient({ adapter: opened.factory });
  try {
    return await fn(prisma);
  } finally {
    await prisma.$disconnect();
    await opened.close();
  }
}

/** Runs the admin CLI against the database and returns its last stdout line as JSON. */
export function cli(database: Database, ...args: string[]): { status: number; json: Record<string, unknown>; stderr: string } {
  const r = spawnSync(process.execPath, ["--no-warnings", "--import", "tsx", "scripts/cli.ts", ...args], {
    cwd: ROOT,
    env: database.env,
    encoding: "utf8",
  });
  const last = r.stdout.trim().split("\n").at(-1) ?? "";
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(last);
  } catch {
    throw new Error(`CLI printed no JSON last line: ${r.stdout}\n${r.stderr}`);
  }
  return { status: r.status ?? -1, json, stderr: r.stderr };
}

export interface RunningApp {
  baseUrl: string;
  stop(): Promise<void>;
  logs(): string;
}

export async function startApp(database: Database, extraEnv: Record<string, string> = {}): Promise<RunningApp> {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npm run build` first (npm test does).");
  }
  const port = await freePort();
  let output = "";
  const child: ChildProcess = spawn(path.join(ROOT, "node_modules/.bin/next"), ["start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    env: { ...database.env, NEXT_TELEMETRY_DISABLED: "1", LOYALTY_JOBS: "off", ...extraEnv },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited early:\n${output}`);
    try {
      const res = await fetch(`${baseUrl}/v1/openapi.json`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`next start did not answer in 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    baseUrl,
    logs: () => output,
    stop: async () => {
      if (process.env.TEST_SHOW_LOGS === "1") console.error(output);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
    },
  };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A JSON call to the app. `body` is serialised unless it is already a string. */
export function client(baseUrl: string, defaultKey?: string) {
  return async (
    method: string,
    pathname: string,
    opts: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? defaultKey : opts.key;
    if (key) headers["api-key"] = key;
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(baseUrl + pathname, { method, headers, body: payload });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    return { status: res.status, headers: res.headers, text, body };
  };
}

export const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));
