import "server-only";
import type { Db } from "@/lib/db/types";

/**
 * A test program's stored clock (Program.clockAt), in one primary-key read; null for a live program or none. Read
 * only for a program already known to be a test one (its key's cached lookup, its staff membership), so a live
 * program's request never pays for it.
 */
export async function readProgramClock(db: Db, programId: string): Promise<Date | null> {
  const program = await db.program.findUnique({ where: { id: programId }, select: { clockAt: true } });
  return program?.clockAt ?? null;
}
