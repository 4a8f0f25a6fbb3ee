import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Tx } from "./types";

/**
 * The one place that decides when a failure means "the database is unavailable" rather than "the request or the
 * code is wrong", and which of those failures may be retried. The HTTP edge answers the first kind with 503
 * `service_unavailable` (lib/api/edge.ts `withEdge`); the helpers below retry once what is certain not to
 * have committed.
 */

/**
 * SQLSTATEs of a lost or refused server: class 08 (connection exception), 57P01 admin_shutdown
 * (pg_terminate_backend, fast shutdown), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or
 * shutting down), 53300 too_many_connections.
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;
/** Node socket errors on connect or mid-query. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
/** @prisma/adapter-pg's names for socket errors (DriverAdapterError cause `kind`). */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout"]);
/** Prisma's own: P1001 can't reach, P1002 timed out, P1017 server closed the connection, P2024 no pool connection in time. */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1017", "P2024"]);
/**
 * node-postgres raises these as plain Errors without a code, and the adapter rethrows them unchanged:
 * the socket closed under a query, or the pool's connect timeout fired.
 */
const DRIVER_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i;

/**
 * Pause before the second attempt. What ends one connection (pg_terminate_backend of every backend, a failover)
 * usually ends the pool's other connections too, but each learns of it only when its backend has exited and the
 * socket closes: some milliseconds later on a busy server. Retrying at once would take one of those from the
 * pool; after the pause the pool has dropped them and the retry opens a fresh connection.
 */
const RETRY_DELAY_MS = 100;
const pause = () => new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));

/** Whether `err` (however Prisma and the driver adapter wrapped it) says the database server is unreachable or went away. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const e = current as Record<string, unknown>;
    for (const code of [e.code, e.originalCode]) {
      if (typeof code !== "string") continue;
      if (UNAVAILABLE_SQLSTATE.test(code) || SOCKET_CODES.has(code) || PRISMA_CODES.has(code)) return true;
    }
    if (typeof e.kind === "string" && ADAPTER_KINDS.has(e.kind)) return true;
    if (typeof e.message === "string" && DRIVER_MESSAGES.test(e.message)) return true;
    // Prisma keeps the adapter's error in meta.driverAdapterError; the adapter keeps the driver's in cause.
    current = e.cause ?? (e.meta as Record<string, unknown> | undefined)?.driverAdapterError;
  }
  return false;
}

/**
 * Runs a read, and runs it once more on a fresh connection when the first attempt lost its connection
 * (pg_terminate_backend, failover, a server restart): a read changes nothing, so a second attempt is always
 * safe. The pool has dropped the dead connection by then (pg-pool removes a client that errored).
 */
export async function retryRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!isDatabaseUnavailable(err)) throw err;
    await pause();
    return read();
  }
}

export interface TransactionOptions {
  maxWait?: number;
  timeout?: number;
}

/**
 * The connection was lost while COMMIT was in flight: the transaction may or may not have committed. Still a
 * database outage to the edge (503, through `cause`); a caller that can tell whether it committed (the
 * idempotency record written in the same transaction) may settle it instead.
 */
export class CommitUncertainError extends Error {
  constructor(readonly cause: unknown) {
    super("The database connection was lost while the transaction committed; whether it committed is unknown.");
    this.name = "CommitUncertainError";
  }
}

/**
 * One interactive transaction, retried once on a fresh connection when the connection was lost before COMMIT
 * was sent: `work` had not returned, so Prisma never sent COMMIT and the server rolled the transaction back
 * when the connection died. A loss after `work` returned happened while COMMIT was in flight: that is not
 * retried here but thrown as CommitUncertainError. A keyed /v1 write settles it by its stored outcome
 * (lib/api/idempotency.ts); anything else answers 503, and the client retries (API.md §1).
 */
export async function transactionWithRetry<T>(
  database: PrismaClient,
  work: (tx: Tx) => Promise<T>,
  options: TransactionOptions,
): Promise<T> {
  let commitSent = false;
  const attempt = () =>
    database.$transaction(async (tx) => {
      commitSent = false;
      const result = await work(tx);
      commitSent = true;
      return result;
    }, options);
  try {
    return await attempt();
  } catch (err) {
    if (!isDatabaseUnavailable(err)) throw err;
    if (commitSent) throw new CommitUncertainError(err);
  }
  await pause();
  try {
    return await attempt();
  } catch (err) {
    if (commitSent && isDatabaseUnavailable(err)) throw new CommitUncertainError(err);
    throw err;
  }
}
