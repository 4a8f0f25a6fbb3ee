import type { Tx } from "@/lib/db/types";

export interface StaffActor {
  staffId: string;
  email: string;
}

/** Records a staff write (who, when, what, before → after) in the same transaction as the write itself. */
export async function audit(
  tx: Tx,
  actor: StaffActor,
  entry: { programId: string; action: string; entityType: string; entityId?: string | null; before?: unknown; after?: unknown },
) {
  await tx.auditLog.create({
    data: {
      programId: entry.programId,
      staffId: actor.staffId,
      staffEmail: actor.email,
      action: entry.action,
      entityType: entry.entityType,
      entityId: entry.entityId ?? null,
      before: entry.before === undefined ? undefined : (JSON.parse(JSON.stringify(entry.before)) as object),
      after: entry.after === undefined ? undefined : (JSON.parse(JSON.stringify(entry.after)) as object),
    },
  });
}
