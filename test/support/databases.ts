/**
 * The one place for the tests' databases: a new PostgreSQL database `t_<random>` on TEST_DATABASE_URL's server, or
 * a PGlite directory; each with SQL and Prisma access from the test process, and dropped when done.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import pg from "pg";
import { openAdapter, type DatabaseTarget } from "@/lib/db/adapter";
import { PrismaClient } from "@/lib/generated/prisma/client";

export interface TestDatabase {
  /** PostgreSQL: the database's name. */
  name?: string;
  target: DatabaseTarget;
  /** What the app and the CLI need to find it: DATABASE_URL (and a pool size) or PGLITE_DIR. */
  env: Record<string, string>;
  /** SQL on the database. PGlite: only while no other process has the directory open. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `fn` with a Prisma client on the database, then closes it. PGlite: as query(). */
  withPrisma<T>(fn: (prisma: PrismaClient) => Promise<T>): Promise<T>;
  /** Deletes the database. */
  drop(): Promise<void>;
}

async function withPrismaOn<T>(target: DatabaseTarget, fn: (prisma: PrismaClient) => Promise<T>): Promise<T> {
  const opened = await openAdapter(target);
  const prisma = new PrismaClient({ adapter: opened.factory });
  try {
    return await fn(prisma);
  } finally {
    await prisma.$disconnect();
    await opened.close();
  }
}

/** One statement on the server's admin database (`adminUrl`). */
export async function asAdmin<T = Record<string, unknown>>(
  adminUrl: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return (await admin.query(sql, params)).rows as T[];
  } finally {
    await admin.end();
  }
}

/** A new database on the server of `adminUrl`: empty, or a copy of the database `template`; `prefix` starts its name. */
export async function postgresDatabase(adminUrl: string, template?: string, prefix = "t"): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(8).toString("hex")}`;
  await asAdmin(adminUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const target: DatabaseTarget = { kind: "postgres", url: url.toString() };
  let pool: pg.Pool | null = null;
  return {
    name,
    target,
    env: { DATABASE_URL: target.url, DATABASE_POOL_SIZE: "20" },
    async query<T>(sql: string, params: unknown[] = []) {
      if (!pool) {
        pool = new pg.Pool({ connectionString: target.url, max: 4 });
        pool.on("error", () => {}); // idle clients are cut when the database is dropped
      }
      return (await pool.query(sql, params)).rows as T[];
    },
    withPrisma: (fn) => withPrismaOn(target, fn),
    async drop() {
      await pool?.end();
      await asAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** The PGlite directory `dir`; drop() deletes `root` (the directory or one that holds it). */
export function pgliteDatabase(dir: string, root = dir): TestDatabase {
  const target: DatabaseTarget = { kind: "pglite", dir };
  return {
    target,
    env: { DATABASE_URL: "", PGLITE_DIR: dir },
    async query<T>(sql: string, params: unknown[] = []) {
      const { PGlite } = await import("@electric-sql/pglite");
      const { pgliteExtensions } = await import("@/lib/db/pglite-extensions");
      const db = await PGlite.create(dir, { extensions: await pgliteExtensions() });
      try {
        return (await db.query<T>(sql, params)).rows;
      } finally {
        await db.close();
      }
    },
    withPrisma: (fn) => withPrismaOn(target, fn),
    async drop() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
