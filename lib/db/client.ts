import "server-only";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { databaseTarget, openAdapter, type DirectQuery, type OpenedAdapter } from "./adapter";

type Db = { prisma: PrismaClient; opened: OpenedAdapter; hot: PrismaClient };

// Kept on globalThis so Next's module reloading and the CLI share one client (PGlite allows one opener per directory).
const holder = globalThis as unknown as { __loyaltyDb?: Promise<Db> };

async function connect(): Promise<Db> {
  const opened = await openAdapter(databaseTarget());
  const prisma = new PrismaClient({ adapter: opened.factory });
  return { prisma, opened, hot: opened.direct ? withDirectRawQueries(prisma, opened.direct) : prisma };
}

/**
 * The client for /v1's hot paths (lib/api/route-factories.ts): the same Prisma client, except that a raw statement
 * run outside a transaction (`$queryRawUnsafe` on the root client: the one-statement writes, the reads built as JSON
 * by the database, the rate-limit bucket) goes straight to the pg pool that Prisma's adapter uses. Prisma's work per
 * raw query (its query plan, argument and result mapping) cost more CPU than the rest of such a request (bench/
 * profile.ts: @prisma/client ~18% of a GET's and an increase's CPU). Inside `$transaction` the transaction client is
 * Prisma's own. Rows come as node-postgres parses them: the hot statements cast what they return to int, text,
 * boolean or uuid, which both give alike. PGlite has no pool: there it is the Prisma client itself.
 */
function withDirectRawQueries(prisma: PrismaClient, direct: DirectQuery): PrismaClient {
  const bound = new Map<PropertyKey, unknown>();
  const raw = (sql: string, ...values: unknown[]) => direct(sql, values);
  return new Proxy(prisma, {
    get(target, prop) {
      if (prop === "$queryRawUnsafe") return raw;
      const value = Reflect.get(target, prop, target);
      // The model delegates (`customer`, …) are objects of their own; the client's `$` methods run on the client
      // itself (it may keep private state that a proxy as `this` could not reach).
      if (typeof value !== "function" || typeof prop !== "string" || !prop.startsWith("$")) return value;
      let fn = bound.get(prop);
      if (!fn) bound.set(prop, (fn = (value as (...a: unknown[]) => unknown).bind(target)));
      return fn;
    },
  });
}

/** The process-wide Prisma client, with raw statements outside transactions straight on the pool (`withDirectRawQueries`). */
export async function hotDb(): Promise<PrismaClient> {
  await db();
  return (await holder.__loyaltyDb!).hot;
}

/** The process-wide Prisma client over whichever database is configured. */
export async function db(): Promise<PrismaClient> {
  holder.__loyaltyDb ??= connect().catch((err) => {
    // Not opened (the embedded database is locked by another process, say): the next call tries again.
    holder.__loyaltyDb = undefined;
    throw err;
  });
  return (await holder.__loyaltyDb).prisma;
}

export async function disconnectDb(): Promise<void> {
  const current = holder.__loyaltyDb;
  if (!current) return;
  holder.__loyaltyDb = undefined;
  const connected = await current.catch(() => null);
  if (!connected) return; // it never opened: nothing to close
  const { prisma, opened } = connected;
  await prisma.$disconnect();
  await opened.close();
}
