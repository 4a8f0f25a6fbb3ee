import "server-only";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client";

/** A client inside an interactive transaction. Domain writes take one so callers decide the transaction's extent. */
export type Tx = Prisma.TransactionClient;
/** Either the root client or a transaction client: for reads that may run in or out of a transaction. */
export type Db = PrismaClient | Tx;

/**
 * The raw statements of the /v1 hot path: a statement's text and its bound values in, its rows out. The Prisma
 * client and a transaction client satisfy it as they are; on PostgreSQL the hot handle's `raw` (lib/db/client.ts
 * `poolQueries`) runs it straight on the pg pool. A function typed on it runs raw statements only, so any of the three
 * may be given: the hot path gives the pool, a locked path its transaction. Rows come as the driver parses them
 * (Prisma's mapping or node-postgres's): a statement run through it casts what it returns to int, text, boolean,
 * uuid or JSON text, which both give alike (test/integration/raw-queries.test.ts runs every hot statement through
 * both and compares).
 */
export interface RawQueries {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

/**
 * The handle of the /v1 hot path (lib/db/client.ts `hotDb`), built once per process: Prisma for model queries and
 * transactions, and `raw` for raw statements outside a transaction (the pg pool on PostgreSQL, Prisma on PGlite).
 */
export interface HotDb {
  readonly prisma: PrismaClient;
  readonly raw: RawQueries;
}

/**
 * ISO 8601 UTC computed in SQL, so read models can be returned as JSON built by the database: milliseconds for
 * what clients read, microseconds (`"us"`, PostgreSQL's own precision) for keyset cursors, which must not round.
 */
export const isoSql = (column: string, precision: "ms" | "us" = "ms") =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.${precision === "us" ? "US" : "MS"}"Z"')`;
