import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { ROOT } from "./app";

/** A real PostgreSQL (PGlite, in memory) with every migration applied, for tests of the domain layer. */
export async function memoryDatabase(): Promise<{ prisma: PrismaClient; close(): Promise<void> }> {
  const pglite = await PGlite.create();
  const dir = path.join(ROOT, "prisma/migrations");
  for (const name of readdirSync(dir).filter((n) => !n.endsWith(".toml")).sort()) {
    await pglite.exec(readFileSync(path.join(dir, name, "migration.sql"), "utf8"));
  }
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  return {
    prisma,
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}
