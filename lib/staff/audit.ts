import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import type { StaffContext } from "./authz";
import { requireVersion, nextVersion, type Versioned } from "./versions";

/**
 * The audit log: the one place that records who changed what in a program (before → after, in the transaction of
 * the change) and every failed staff sign-in.
 */

/** Every action the audit log knows; the audit page filters on these. Add yours when you add a staff write. */
export const AUDIT_ACTIONS = [
  "customer.update",
  "customer.delete",
  "customer.preferences",
  "customer.note",
  "balance.adjust",
  "balance.reverse",
  "reward.redeem",
  "redemption.cancel",
  "coupon.assign",
  "notification.send",
  "tier.create",
  "tier.update",
  "tier.remove",
  "apikey.create",
  "apikey.revoke",
  "apikey.update",
  "customer_tokens.revoke",
  "reward.create",
  "reward.update",
  "coupon_pool.create",
  "coupon_pool.import",
  "earning_flow.create",
  "earning_flow.update",
  "earning_flow.deactivate",
  "earning_flow.activate",
  "event_type.create",
  "event_type.update",
  "campaign.create",
  "campaign.update",
  "campaign.activate",
  "campaign.pause",
  "campaign.resume",
  "campaign.end",
  "segment.create",
  "segment.update",
  "segment.delete",
  "coupon_pool.update",
  "program.update",
  "program.referrals_update",
  "program.point_value",
  "program.points_policy_update",
  "program.create",
  "clock.advance",
  "webhook.create",
  "webhook.update",
  "webhook.subscriptions",
  "webhook.rotate_secret",
  "webhook.test",
  "push.set",
  "delivery.resend",
  "staff.create",
  "staff.role",
  "staff.disable",
  "staff.enable",
  "staff.unlock",
  "staff.invite",
  "staff.add_existing",
  "staff.reset_link",
  "staff.remove",
  "staff.second_factor_setting",
  "staff.invite_accepted",
  "staff.password_reset",
  "staff.password_change",
  "staff.totp_enable",
  "staff.totp_disable",
  "staff.recovery_code_used",
  "data.export",
  "staff.signin_failed",
  "staff.signin_locked",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What was changed: its kind (`customer`, `tier`, `api_key`, …) and id. */
export interface AuditEntity {
  type: string;
  id?: string | null;
}

/** Dates and other non-JSON values as their JSON form; undefined stays absent (SQL NULL). */
const json = (value: unknown) =>
  value === undefined || value === null ? undefined : (JSON.parse(JSON.stringify(value)) as object);

/**
 * Records a staff write — who, when, what, before → after — in the transaction `tx` that makes the write, so
 * the change and its record commit or roll back together. Every staff write calls it; never pass secrets.
 */
export async function audited(
  tx: Tx,
  actor: StaffContext,
  action: AuditAction,
  entity: AuditEntity,
  before: unknown,
  after: unknown,
) {
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

/**
 * The one shape of an audited change to an existing entity: read it, change it, read it again with the same
 * `read` (which also proves the entity is the caller's), and record before → after in the same transaction.
 * `shown` is what the log keeps of a reading (default: all of it), e.g. a URL without its password.
 * `version`: the edit is refused (409 `stale_edit`) unless made from the row's current version (lib/staff/versions.ts),
 * and moves it on; the new version is returned for the form's next save.
 */
export async function auditedUpdate<T, R>(
  tx: Tx,
  actor: StaffContext,
  action: AuditAction,
  entity: AuditEntity,
  steps: {
    read: () => Promise<T>;
    change: (before: T) => Promise<R>;
    shown?: (reading: T) => unknown;
    version?: { of: Versioned; expected: string | undefined };
  },
): Promise<{ after: T; result: R; version?: string }> {
  const shown = steps.shown ?? ((reading: T) => reading);
  if (steps.version) await requireVersion(tx, actor, steps.version.of, entity.id ?? "", steps.version.expected);
  const before = await steps.read();
  const result = await steps.change(before);
  const version = steps.version ? await nextVersion(tx, actor, steps.version.of, entity.id ?? "") : undefined;
  const after = await steps.read();
  await audited(tx, actor, action, entity, shown(before), shown(after));
  return { after, result, version };
}

/**
 * Records a failed staff sign-in or a lock it started: one row in the audit log of every program the account
 * belongs to (so each program's owners see them), or one row without a program when the e-mail is no account's.
 * `staffId` when the e-mail is an account's, and the e-mail as typed (lower-cased, cut to 320 characters).
 * `detail` holds the client address and the counts.
 */
/**
 * An account's own action (its password, its second factor, a one-time link used): one row in each program the
 * account belongs to (or `programIds` when given), with the account as the actor. In the caller's transaction.
 */
export async function auditedAccount(
  db: Db,
  account: { id: string; email: string },
  action: AuditAction,
  after: unknown,
  programIds?: string[],
) {
  const programs =
    programIds ??
    (await db.staffMembership.findMany({ where: { staffId: account.id }, select: { programId: true } })).map(
      (m) => m.programId,
    );
  await db.auditLog.createMany({
    data: (programs.length > 0 ? programs : [null]).map((programId) => ({
      programId,
      staffId: account.id,
      staffEmail: account.email,
      action,
      entityType: "staff_account",
      entityId: account.id,
      after: json(after),
    })),
  });
}

export async function auditedSignIn(
  db: Db,
  action: "staff.signin_failed" | "staff.signin_locked",
  attempt: { email: string; address: string },
  detail: Record<string, unknown>,
) {
  const email = attempt.email.trim().toLowerCase().slice(0, 320);
  const account = await db.staffUser.findUnique({
    where: { email },
    select: { id: true, memberships: { select: { programId: true } } },
  });
  const programs = account && account.memberships.length > 0 ? account.memberships.map((m) => m.programId) : [null];
  await db.auditLog.createMany({
    data: programs.map((programId) => ({
      programId,
      staffId: account?.id ?? null,
      staffEmail: email,
      action,
      entityType: "staff_account",
      entityId: account?.id ?? null,
      after: json({ address: attempt.address, ...detail }),
    })),
  });
}
