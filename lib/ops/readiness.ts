import "server-only";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { db } from "@/lib/db/client";
import { isDatabaseUnavailable } from "@/lib/db/outage";
import { notReady, type AppError } from "@/lib/errors";
import { errorFields, log } from "./logger";

/**
 * Whether this instance may take traffic (GET /readyz): the database answers within READY_TIMEOUT_MS, and every
 * migration in prisma/migrations is recorded as applied in `_prisma_migrations` (a deploy that forgot
 * `npm run db:migrate` is not ready). The migrations are compared once: after the first success only the database
 * is pinged (`SELECT 1`), so a probe costs one round trip on a pooled connection.
 */

const READY_TIMEOUT_MS = 1_500;
const MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");

const holder = globalThis as unknown as { __loyaltyMigrationsApplied?: boolean };

class TimedOut extends Error {}

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The migrations this build ships: the folders of prisma/migrations that hold a migration.sql. */
async function shippedMigrations(): Promise<string[] | null> {
  try {
    const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return null;
  }
}

async function check(): Promise<AppError | null> {
  const prisma = await db();
  if (holder.__loyaltyMigrationsApplied) {
    await prisma.$queryRawUnsafe("SELECT 1");
    return null;
  }
  const shipped = await shippedMigrations();
  if (shipped === null) return notReady("prisma/migrations is not beside the server");
  const rows = await prisma
    .$queryRawUnsafe<{ migration_name: string }[]>(
      // A table that does not exist yet (a database never migrated) reads as no migration applied.
      `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    )
    .catch((err: unknown) => {
      if ((err as { message?: string })?.message?.includes("_prisma_migrations")) return [];
      throw err;
    });
  const applied = new Set(rows.map((r) => r.migration_name));
  const missing = shipped.filter((name) => !applied.has(name));
  if (missing.length > 0) return notReady(`${missing.length} migration(s) not applied (run npm run db:migrate)`);
  holder.__loyaltyMigrationsApplied = true;
  return null;
}

/** null when ready, else the 503 problem to answer. */
export async function readiness(): Promise<AppError | null> {
  try {
    return await within(READY_TIMEOUT_MS, check());
  } catch (err) {
    if (err instanceof TimedOut) return notReady("the database did not answer in time");
    if (!isDatabaseUnavailable(err)) log().error({ ...errorFields(err) }, "readiness check failed");
    return notReady("the database is unavailable");
  }
}
