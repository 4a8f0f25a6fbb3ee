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
  holder.__loyaltyDb ??= connect();
  return (await holder.__loyaltyDb).prisma;
}

export async function disconnectDb(): Promise<void> {
  const current = holder.__loyaltyDb;
  if (!current) return;
  holder.__loyaltyDb = undefined;
  const { prisma, opened } = await current;
  await prisma.$disconnect();
  await opened.close();
}
