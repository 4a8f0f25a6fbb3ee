import "server-only";
import type { Db } from "@/lib/db/types";
import { dayBounds } from "@/lib/exports/sources";
import type { ExportFilter } from "@/lib/exports/kinds";
import { keysetPage, NEWEST_FIRST, olderThan } from "./keyset";

/** The audit page's filter: the audit-log export's (lib/exports/kinds.ts), so the CSV holds what the page lists. */
export type AuditFilter = ExportFilter<"audit-log">;

/**
 * One page (newest first) of the program's audit log, filtered like its CSV export (lib/exports/sources.ts
 * `auditLogExport`): days `from`–`to` in the program's time zone, action, staff e-mail, entity type and id;
 * keyset cursor.
 */
export async function auditPage(db: Db, programId: string, filter: AuditFilter, after?: string | null) {
  const take = 50;
  const bounds = filter.from || filter.to ? await dayBounds(db, programId, filter) : { from: null, to: null };
  const rows = await db.auditLog.findMany({
    where: {
      programId,
      ...(filter.action ? { action: filter.action } : {}),
      ...(filter.staff?.trim() ? { staffEmail: filter.staff.trim().toLowerCase() } : {}),
      ...(filter.type ? { entityType: filter.type } : {}),
      ...(filter.entity?.trim() ? { entityId: filter.entity.trim() } : {}),
      ...(bounds.from || bounds.to
        ? {
            createdAt: {
              ...(bounds.from ? { gte: new Date(bounds.from) } : {}),
              ...(bounds.to ? { lt: new Date(bounds.to) } : {}),
            },
          }
        : {}),
      ...olderThan(after),
    },
    orderBy: [...NEWEST_FIRST],
    take: take + 1,
  });
  return keysetPage(rows, take);
}
