import "server-only";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { databaseTarget, openAdapter, type OpenedAdapter } from "./adapter";

type Db = { prisma: PrismaClient; opened: OpenedAdapter };

// Kept on globalThis so Next's module reloading and the CLI share one client (PGlite allows one opener per directory).
const holder = globalThis as unknown as { __loyaltyDb?: Promise<Db> };

async function connect(): Promise<Db> {
  const opened = await openAdapter(databaseTarget());
  const prisma = new PrismaClient({ adapter: opened.factory });
  return { prisma, opened };
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
