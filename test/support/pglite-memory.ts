/**
 * A real PostgreSQL in the test process: an in-memory PGlite with every migration of prisma/migrations applied in
 * order, and a Prisma client over it (the same driver adapter the app uses for PGlite). For tests of the domain layer.
 */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { pgliteExtensions } from "@/lib/db/pglite-extensions";
import { PrismaClient } from "@/lib/generated/prisma/client";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../prisma/migrations");

export interface MemoryDatabase {
  prisma: PrismaClient;
  /** The PGlite itself, for SQL that should not go through Prisma. */
  pglite: PGlite;
  close(): Promise<void>;
}

export async function memoryDatabase(): Promise<MemoryDatabase> {
  const pglite = await PGlite.create({ extensions: await pgliteExtensions() });
  const names = readdirSync(MIGRATIONS)
    .filter((n) => existsSync(path.join(MIGRATIONS, n, "migration.sql")))
    .sort();
  if (names.length === 0) throw new Error(`no migrations in ${MIGRATIONS}`);
  for (const name of names) await pglite.exec(readFileSync(path.join(MIGRATIONS, name, "migration.sql"), "utf8"));
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  return {
    prisma,
    pglite,
    async close() {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}
