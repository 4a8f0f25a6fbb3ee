import "server-only";
import type { Db } from "@/lib/db/types";
import { keysetPage, NEWEST_FIRST, olderThan } from "./keyset";

/** One page (newest first) of the program's audit log, filtered by action and staff e-mail; keyset cursor. */
export async function auditPage(
  db: Db,
  programId: string,
  options: { action?: string; staff?: string; after?: string | null },
) {
  const take = 50;
  const rows = await db.auditLog.findMany({
    where: {
      programId,
      ...(options.action ? { action: options.action } : {}),
      ...(options.staff ? { staffEmail: options.staff } : {}),
      ...olderThan(options.after),
    },
    orderBy: [...NEWEST_FIRST],
    take: take + 1,
  });
  return keysetPage(rows, take);
}
