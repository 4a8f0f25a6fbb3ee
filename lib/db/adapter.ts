import "server-only";
import { createHash } from "node:crypto";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { config, loadConfig, type Environment } from "@/lib/config";
import { log } from "@/lib/ops/logger";
import { watchPool } from "@/lib/ops/metrics";
import { lockPgliteDir } from "./pglite-lock";
import { pgliteExtensions } from "./pglite-extensions";
import { CUSTOM_PLAN_MARK } from "./sql";

/** Where the database lives: a PostgreSQL server when DATABASE_URL is set, else an embedded PGlite directory. */
export type DatabaseTarget = { kind: "postgres"; url: string } | { kind: "pglite"; dir: string };

export function databaseTarget(env?: Environment): DatabaseTarget {
  const { DATABASE_URL, PGLITE_DIR } = env ? loadConfig(env) : config();
  return DATABASE_URL ? { kind: "postgres", url: DATABASE_URL } : { kind: "pglite", dir: PGLITE_DIR };
}

/** How long a request may wait for a free pooled connection: Prisma's transaction maxWait (`TX_OPTIONS` in lib/api/edge.ts). */
const POOL_WAIT_MS = 10_000;

/** A raw statement straight on the driver's pool: its rows as node-postgres parses them. */
export type DirectQuery = <T>(sql: string, values: readonly unknown[]) => Promise<T>;

export interface OpenedAdapter {
  factory: SqlMigrationAwareDriverAdapterFactory;
  /** PostgreSQL only: raw statements on the same pool without Prisma (lib/db/client.ts `poolQueries`). */
  direct?: DirectQuery;
  /** Releases the pool or closes the embedded database. */
  close(): Promise<void>;
}

/**
 * Whether the PostgreSQL at `url` is reached through PgBouncer in transaction pooling mode: DATABASE_PGBOUNCER=1,
 * or (unset) `pgbouncer=true` in the URL's query, the form Prisma's documentation uses.
 */
export function behindPgBouncer(url: string, setting = config().DATABASE_PGBOUNCER): boolean {
  if (setting !== undefined) return setting;
  try {
    return new URL(url).searchParams.get("pgbouncer") === "true";
  } catch {
    return false;
  }
}

/** The URL without `pgbouncer=…`, which is ours, not a connection parameter the server knows. */
function withoutPgBouncerParam(url: string): string {
  if (!url.includes("pgbouncer=")) return url;
  const parsed = new URL(url);
  parsed.searchParams.delete("pgbouncer");
  return parsed.toString();
}

const names = new Map<string, string>();

/**
 * Names every statement after its text, so each connection prepares it once and reuses the plan: planning
 * the read models' joins costs several times their execution (measured: 1.3 ms → 0.13 ms per customer read).
 * A statement marked `customPlan` (lib/db/sql.ts) gets the empty name: the protocol's unnamed statement, which
 * PostgreSQL plans with its bound values on every run.
 */
export function preparedName(query: { sql: string }): string {
  let name = names.get(query.sql);
  if (name === undefined) {
    name = query.sql.includes(CUSTOM_PLAN_MARK)
      ? ""
      : `q_${createHash("sha1").update(query.sql).digest("hex").slice(0, 20)}`;
    if (names.size < 10_000) names.set(query.sql, name);
  }
  return name;
}

/**
 * One driver adapter factory per process. Both the app's Prisma client and the migration tool go
 * through this, so the two databases share every line of data-access code.
 */
export async function openAdapter(target: DatabaseTarget = databaseTarget()): Promise<OpenedAdapter> {
  if (target.kind === "postgres") {
    const { PrismaPg } = await import("@prisma/adapter-pg");
    const { default: pg } = await import("pg");
    // DATABASE_CONNECT_TIMEOUT_MS: how long opening one new connection may take before the request fails (503): a
    // server that is down refuses at once, but an unreachable host (failover, partition) would hang the request.
    const { DATABASE_CONNECT_TIMEOUT_MS, DATABASE_POOL_SIZE } = config();
    const pgbouncer = behindPgBouncer(target.url);
    // When one connection is lost (pg_terminate_backend, a failover, a restart), the others opened before it
    // are suspect: the server may have ended them too, and a busy server takes a while to say so. Each loss
    // starts a new generation; a connection of an older generation is not lent out again (FreshAfterLossPool),
    // so a retry (lib/db/outage.ts) runs on a connection opened after the loss.
    let generation = 0;
    // pg-pool uses one connectionTimeoutMillis for both waiting in its queue and connecting; the client class
    // gives each new connection its own, shorter limit, so a busy pool is not mistaken for a dead server.
    class PooledClient extends pg.Client {
      readonly generation = generation;
      constructor(config?: import("pg").ClientConfig) {
        super({ ...config, connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS });
        const lost = () => {
          if (this.generation === generation) generation++;
        };
        // A FATAL error ends the session, but node-postgres marks the client dead only when the socket's close
        // arrives a moment later; released in between, the pool would lend it again. Mark it at once so the
        // pool drops it on release (`_queryable` is the flag pg-pool's release checks).
        this.connection.on("errorMessage", (msg: { severity?: string }) => {
          if (msg.severity !== "FATAL") return;
          (this as unknown as { _queryable: boolean })._queryable = false;
          lost();
        });
        this.connection.on("error", lost);
        this.connection.on("end", () => {
          if (!(this as unknown as { _ending: boolean })._ending) lost();
        });
      }
    }
    type PoolClient = import("pg").PoolClient;
    type Checkout = (
      err: Error | undefined,
      client: PoolClient | undefined,
      done: (release?: boolean | Error) => void,
    ) => void;
    class FreshAfterLossPool extends pg.Pool {
      connect(): Promise<PoolClient>;
      connect(callback: Checkout): void;
      // One implementation for both forms: Prisma's transactions use the promise, pool.query the callback.
      connect(callback?: Checkout): Promise<PoolClient> | void {
        const checkout = (async () => {
          for (;;) {
            const client = await super.connect();
            if ((client as unknown as PooledClient).generation === generation) return client;
            client.release(true); // released with an error: pg-pool closes it and forgets it
          }
        })();
        if (!callback) return checkout;
        checkout.then(
          (client) => callback(undefined, client, (release) => client.release(release)),
          (err: Error) => callback(err, undefined, () => {}),
        );
      }
    }
    const pool = new FreshAfterLossPool({
      connectionString: withoutPgBouncerParam(target.url),
      max: DATABASE_POOL_SIZE,
      Client: PooledClient,
      connectionTimeoutMillis: POOL_WAIT_MS,
      // No JIT compilation: the app's statements read few rows, but the planner's estimate of a report's day
      // statement (CTEs) passes jit_above_cost, and compiling it took ~350 ms of a 1-second Overview at 10,000,000
      // entries (bench/reports.ts), more than running it. Behind PgBouncer a startup option is refused: set
      // `jit = off` on the role there (docs/operating.md).
      ...(pgbouncer ? {} : { options: "-c jit=off" }),
      // A peer that vanished without closing the socket (failover) is noticed by TCP keepalive, not never.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // An idle connection closed by the server (restart, failover) must not crash the process; the pool reconnects.
    pool.on("error", (err) => log().warn({ error: err.message }, "idle database connection lost"));
    watchPool(pool);
    // Behind PgBouncer in transaction pooling mode, consecutive transactions of one client connection run on
    // different server connections, so a statement prepared by name on one is unknown (or another's) on the next:
    // every statement goes unnamed (parse, bind, execute in one round trip, planned each time) instead.
    const factory = new PrismaPg(pool, pgbouncer ? {} : { statementNameGenerator: preparedName });
    // The same statement names as Prisma's (one text, one name), so a connection prepares each statement once.
    const direct: DirectQuery = async <T>(sql: string, values: readonly unknown[]) =>
      (await pool.query({ text: sql, values: [...values], ...(pgbouncer ? {} : { name: preparedName({ sql }) }) }))
        .rows as T;
    return { factory, direct, close: () => pool.end() };
  }
  const { mkdir } = await import("node:fs/promises");
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  await mkdir(target.dir, { recursive: true });
  // Before PGlite touches the directory: a second opener would corrupt it (lib/db/pglite-lock.ts).
  const lock = lockPgliteDir(target.dir);
  let pglite: InstanceType<typeof PGlite>;
  try {
    pglite = await PGlite.create(target.dir, { extensions: await pgliteExtensions() });
  } catch (err) {
    lock.release();
    throw err;
  }
  return {
    factory: new PrismaPGlite(pglite),
    close: async () => {
      try {
        await pglite.close();
      } finally {
        lock.release();
      }
    },
  };
}
