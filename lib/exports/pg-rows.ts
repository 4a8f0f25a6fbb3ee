import "server-only";
import type { Pool } from "pg";
import { config } from "@/lib/config";
import { databaseTarget } from "@/lib/db/adapter";
import type { Sql } from "@/lib/db/sql";
import type { CsvCell } from "./csv-options";

/** Runs one SELECT of an export's batch and returns its rows by column name. */
export type RowReader = (statement: Sql) => Promise<Record<string, CsvCell>[]>;

/**
 * On PostgreSQL, exports read their batches through a small pg pool of their own rather than Prisma's raw queries.
 * Measured (bench/export.ts, 500,000 ledger rows): through `$queryRawUnsafe` every batch's cells outlived two young
 * collections inside Prisma's result mapping and were promoted, so the old generation filled with dead rows until
 * V8's next full collection, which it lets wait until the heap is several times its live size: +100–160 MB
 * resident. Read with pg directly, the same batches die young: +30 MB. Two connections at most (an export reads
 * one batch at a time), closed when idle; the app's own pool (lib/db/adapter.ts) is left to requests.
 */
let pool: Promise<Pool> | undefined;

async function exportPool(url: string): Promise<Pool> {
  const { default: pg } = await import("pg");
  const { DATABASE_CONNECT_TIMEOUT_MS } = config();
  const p = new pg.Pool({
    connectionString: url,
    max: 2,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    // Idle connections do not hold a process open: the CLI's `export` ends when its file is written.
    allowExitOnIdle: true,
  });
  // An idle connection closed by the server must not crash the process: the pool opens another when asked.
  p.on("error", (err) =>
    console.error(JSON.stringify({ level: "error", msg: "export pool connection lost", error: String(err) })),
  );
  return p;
}

/** The pg reader when the database is PostgreSQL, else null (PGlite: one embedded connection, read through Prisma). */
export function pgRowReader(): RowReader | null {
  const target = databaseTarget();
  if (target.kind !== "postgres") return null;
  return async (statement) => {
    const p = await (pool ??= exportPool(target.url));
    const result = await p.query<Record<string, CsvCell>>(statement.text, [...statement.values]);
    return result.rows;
  };
}
