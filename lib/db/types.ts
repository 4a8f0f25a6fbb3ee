import "server-only";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client";

/** A client inside an interactive transaction. Domain writes take one so callers decide the transaction's extent. */
export type Tx = Prisma.TransactionClient;
/** Either the root client or a transaction client: for reads that may run in or out of a transaction. */
export type Db = PrismaClient | Tx;

/**
 * ISO 8601 UTC computed in SQL, so read models can be returned as JSON built by the database: milliseconds for
 * what clients read, microseconds (`"us"`, PostgreSQL's own precision) for keyset cursors, which must not round.
 */
export const isoSql = (column: string, precision: "ms" | "us" = "ms") =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.${precision === "us" ? "US" : "MS"}"Z"')`;
