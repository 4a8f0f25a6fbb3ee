import type { Tx } from "@/lib/db/types";
import type { StaffContext } from "./authz";

/** Every action the audit log knows; the audit page filters on these. Add yours when you add a staff write. */
export const AUDIT_ACTIONS = [
  "customer.update",
  "customer.delete",
  "balance.adjust",
  "reward.redeem",
  "coupon.assign",
  "notification.send",
  "tier.create",
  "apikey.create",
  "apikey.revoke",
  "reward.create",
  "reward.update",
  "coupon_pool.create",
  "coupon_pool.import",
  "earning_flow.create",
  "webhook.create",
  "webhook.update",
  "push.set",
  "delivery.resend",
  "staff.create",
  "staff.role",
  "staff.disable",
  "staff.enable",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What was changed: its kind (`customer`, `tier`, `api_key`, …) and id. */
export interface AuditEntity {
  type: string;
  id?: string | null;
}

/** Dates and other non-JSON values as their JSON form; undefined stays absent (SQL NULL). */
const json = (value: unknown) => (value === undefined || value === null ? undefined : (JSON.parse(JSON.stringify(value)) as object));

/**
 * Records a staff write — who, when, what, before → after — in the transaction `tx` that makes the write, so
 * the change and its record commit or roll back together. Every staff write calls it; never pass secrets.
 */
export async function audited(tx: Tx, actor: StaffContext, action: AuditAction, entity: AuditEntity, before: unknown, after: unknown) {
  await tx.auditLog.create({
    data: {
      programId: actor.programId,
      staffId: actor.staffId,
      staffEmail: actor.email,
      action,
      entityType: entity.type,
      entityId: entity.id ?? null,
      before: json(before),
      after: json(after),
    },
  });
}
