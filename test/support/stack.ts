/**
 * The one way the HTTP tests start a stack: `openStack(backend, spec)` gives a fresh database with the fixtures of
 * `spec` (fixtures.ts), on which the test starts the built app (`next start`) once or several times.
 *
 *  - PGlite (always): a temp directory, copied from the spec's template (template-cache.ts).
 *  - PostgreSQL (when TEST_DATABASE_URL is set): a new database `t_<random>` on that server, copied from the spec's
 *    template database there, dropped by close().
 *
 * Fixtures are made before the first app instance starts, because only one process at a time may open a PGlite
 * directory. A stack can stop and start the app on the same database (PGlite: to read it or to run the CLI) and run
 * several instances on one PostgreSQL database.
 *
 *   for (const backend of BACKENDS) describe(`… [${backend}]`, () => {
 *     let stack: Stack<Fixtures<typeof SPEC>>;
 *     before(async () => { stack = await openStack(backend, SPEC, { start: true }); });
 *     after(() => stack?.close());
 *     test("…", async () => { const res = await stack.api("GET", customerPath(stack.programId, "x@y.io")); });
 *   });
 */
import { cpSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Api } from "./api-client";
import { requireBuild, startApp, type AppInstance, type ServerKind } from "./app-process";
import { childEnv, cliRun, loyaltyWith, type CliRun } from "./cli";
import { pgliteDatabase, postgresDatabase, type TestDatabase } from "./databases";
import type { FixtureSpec } from "./fixture-spec";
import { MIGRATED, pgliteTemplate, postgresTemplate } from "./template-cache";

export { customerPath, type Api, type ApiOptions, type ApiResponse } from "./api-client";
export { waitFor, type AppInstance, type ServerKind } from "./app-process";
export { cliString, type CliRun } from "./cli";

export type Backend = "pglite" | "postgres";

/** Integration tests run on PGlite always, and on PostgreSQL too when TEST_DATABASE_URL is set. */
export const BACKENDS: Backend[] = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

/** A migrated database and nothing else, for tests that make their fixtures in the test (withPrisma). */
export const MIGRATED_ONLY = MIGRATED;

/** What a spec builds. */
export type Fixtures<S> = S extends FixtureSpec<infer F> ? F : never;

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
  /**
   * Starts an app instance (the production front, one worker, jobs off, unless extraEnv says otherwise; `next start`
   * with server "next"). PGlite: one at a time.
   */
  start(extraEnv?: Record<string, string>, server?: ServerKind): Promise<AppInstance>;
  /** The first running instance's client (sending the fixtures' `key` by default). */
  api: Api;
  /** The first running instance's URL. */
  readonly baseUrl: string;
  /** The output of the first running instance, or of the last one stopped. */
  logs(): string;
  /** Stops every running instance. */
  stopAll(): Promise<void>;
  /** SQL on the database. PostgreSQL: at any time. PGlite: only while no app runs. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `fn` with a Prisma client on the database (domain-level fixtures), then closes it. PGlite: only while no app runs. */
  withPrisma<T>(fn: (prisma: PrismaClient) => Promise<T>): Promise<T>;
  /** Stops everything and drops the database. Idempotent. */
  close(): Promise<void>;
};

/** A copy of the spec's template: a new PostgreSQL database, or a PGlite directory. */
async function databaseWith<F>(backend: Backend, spec: FixtureSpec<F>): Promise<{ db: TestDatabase; fixtures: F }> {
  if (backend === "postgres") {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
    const template = await postgresTemplate(adminUrl, spec);
    return { db: await postgresDatabase(adminUrl, template.name), fixtures: template.fixtures };
  }
  const template = await pgliteTemplate(spec);
  const root = mkdtempSync(path.join(os.tmpdir(), `loyalty-${spec.name}-`));
  cpSync(template.dir, path.join(root, "db"), { recursive: true });
  return { db: pgliteDatabase(path.join(root, "db"), root), fixtures: template.fixtures };
}

/** A fresh database with `spec`'s fixtures; no app runs until `start()`, or (`options.start`) one runs already. */
export async function openStack<F>(
  backend: Backend,
  spec: FixtureSpec<F>,
  options: { start?: boolean } = {},
): Promise<Stack<F>> {
  requireBuild();
  const { db, fixtures } = await databaseWith(backend, spec);
  const env = childEnv(db.env);
  const defaultKey = (fixtures as { key?: string }).key;
  const running = new Set<AppInstance>();
  let lastLogs = "";
  let closed = false;
  const pgliteBusy = (what: string) => {
    if (backend === "pglite" && running.size > 0) throw new Error(`PGlite: ${what} only while no app instance runs`);
  };
  const first = () => {
    const [app] = running;
    if (!app) throw new Error("no app instance is running");
    return app;
  };

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
    async start(extraEnv = {}, server) {
      pgliteBusy("another instance starts");
      return startApp({ ...env, LOYALTY_JOBS: "off", ...extraEnv }, defaultKey, running, server);
    },
    api: (method, pathname, options) => first().api(method, pathname, options),
    get baseUrl() {
      return first().baseUrl;
    },
    logs: () => [...running][0]?.logs() ?? lastLogs,
    async stopAll() {
      const instances = [...running];
      if (instances[0]) lastLogs = instances[0].logs();
      await Promise.all(instances.map((i) => i.stop()));
    },
    async query<T>(sql: string, params: unknown[] = []) {
      if (backend === "pglite") pgliteBusy("SQL runs");
      return db.query<T>(sql, params);
    },
    async withPrisma<T>(fn: (prisma: PrismaClient) => Promise<T>) {
      pgliteBusy("Prisma runs");
      return db.withPrisma(fn);
    },
    async close() {
      if (closed) return;
      closed = true;
      await stack.stopAll();
      await db.drop();
    },
  };
  if (options.start) {
    try {
      await stack.start();
    } catch (err) {
      await stack.close().catch(() => {});
      throw err;
    }
  }
  return stack;
}
