import "server-only";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { databaseTarget, openAdapter, type DirectQuery, type OpenedAdapter } from "./adapter";
import type { HotDb, RawQueries } from "./types";

type Connected = { prisma: PrismaClient; opened: OpenedAdapter; hot: HotDb };

// Kept on globalThis so Next's module reloading and the CLI share one client (PGlite allows one opener per directory).
const holder = globalThis as unknown as { __loyaltyDb?: Promise<Connected> };

async function connect(): Promise<Connected> {
  const opened = await openAdapter(databaseTarget());
  const prisma = new PrismaClient({ adapter: opened.factory });
  return { prisma, opened, hot: { prisma, raw: opened.direct ? poolQueries(opened.direct) : prisma } };
}

/**
 * Raw statements straight on the pg pool that Prisma's adapter uses, for the /v1 hot paths outside a transaction (the
 * one-statement writes, the reads built as JSON by the database, the rate-limit bucket, the customer lookup).
 * Prisma's work per raw query (its query plan, argument and result mapping) cost more CPU than the rest of such a
 * request (bench/profile.ts: @prisma/client ~18% of a GET's and an increase's CPU). PGlite has no pool: there `raw` is
 * the Prisma client itself.
 */
export function poolQueries(direct: DirectQuery): RawQueries {
  return { $queryRawUnsafe: (sql, ...values) => direct(sql, values) };
}

/** The /v1 hot path's handle: the process-wide Prisma client and its raw statements on the pool (`poolQueries`). */
export async function hotDb(): Promise<HotDb> {
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
