import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";

/** Where the database lives: a PostgreSQL server when DATABASE_URL is set, else an embedded PGlite directory. */
export type DatabaseTarget =
  | { kind: "postgres"; url: string }
  | { kind: "pglite"; dir: string };

export function databaseTarget(env: NodeJS.ProcessEnv = process.env): DatabaseTarget {
  const url = env.DATABASE_URL?.trim();
  if (url) return { kind: "postgres", url };
  return { kind: "pglite", dir: env.PGLITE_DIR?.trim() || ".data/pglite" };
}

export interface OpenedAdapter {
  factory: SqlMigrationAwareDriverAdapterFactory;
  /** Releases the pool or closes the embedded database. */
  close(): Promise<void>;
}

/**
 * One driver adapter factory per process. Both the app's Prisma client and the migration tool go
 * through this, so the two databases share every line of data-access code.
 */
export async function openAdapter(target: DatabaseTarget = databaseTarget()): Promise<OpenedAdapter> {
  if (target.kind === "postgres") {
    const { PrismaPg } = await import("@prisma/adapter-pg");
    const max = Number(process.env.DATABASE_POOL_SIZE ?? 10);
    const factory = new PrismaPg({ connectionString: target.url, max });
    return { factory, close: async () => {} };
  }
  const { mkdir } = await import("node:fs/promises");
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  await mkdir(target.dir, { recursive: true });
  const pglite = await PGlite.create(target.dir);
  return { factory: new PrismaPGlite(pglite), close: () => pglite.close() };
}
