import "server-only";
import type { Db } from "@/lib/db/types";
import { memberOf, ROLES } from "@/lib/domain/vocabulary";
import { accountLocks } from "@/lib/domain/sign-in-throttle";

/** The dashboard's reads of the program's staff: the staff page and the audit page's filter. Never a password hash. */

/** Staff of the program, for the audit page's filter. */
export async function programStaff(db: Db, programId: string) {
  const members = await db.staffMembership.findMany({
    where: { programId },
    select: { role: true, staff: { select: { email: true } } },
    orderBy: { staff: { email: "asc" } },
  });
  return members.map((m) => ({ email: m.staff.email, role: m.role }));
}

/** The staff page: everyone with a role in the program. */
export async function staffMembers(db: Db, programId: string) {
  const members = await db.staffMembership.findMany({
    where: { programId },
    select: {
      role: true,
      createdAt: true,
      updatedAt: true,
      staff: {
        select: { id: true, email: true, name: true, disabledAt: true, lastSignInAt: true, totpEnabledAt: true },
      },
    },
    orderBy: { staff: { email: "asc" } },
  });
  const locks = await accountLocks(
    db,
    members.map((m) => m.staff.email),
  );
  // The column is text; the role vocabulary (lib/domain/staff.ts ROLES) is what writes it.
  return members.map((m) => ({
    id: m.staff.id,
    email: m.staff.email,
    name: m.staff.name,
    role: memberOf(ROLES, m.role),
    addedAt: m.createdAt,
    disabledAt: m.staff.disabledAt,
    /** The last successful sign-in, or null (never signed in). */
    lastSignInAt: m.staff.lastSignInAt,
    /** Whether the account has a second factor (TOTP). */
    secondFactor: !!m.staff.totpEnabledAt,
    /** When the account's sign-in lock ends (failed sign-ins from addresses it never signed in from), or null. */
    lockedUntil: locks.get(m.staff.email) ?? null,
    /** The membership's version, for the role form (a stale change is refused). */
    version: m.updatedAt,
  }));
}

/** The staff page's invitations not used yet (never their tokens: only who, which role, until when). */
export async function pendingInvites(db: Db, programId: string, now: Date) {
  return db.staffLink.findMany({
    where: { kind: "invite", programId, usedAt: null, expiresAt: { gt: now } },
    select: { id: true, email: true, role: true, expiresAt: true },
    orderBy: { createdAt: "desc" },
  });
}

/** The program's second-factor setting and whether the signed-in owner has one. */
export async function secondFactorSetting(db: Db, programId: string, staffId: string) {
  const [program, me] = await Promise.all([
    db.program.findUniqueOrThrow({ where: { id: programId }, select: { requireStaffTotp: true } }),
    db.staffUser.findUniqueOrThrow({ where: { id: staffId }, select: { totpEnabledAt: true } }),
  ]);
  return { required: program.requireStaffTotp, ownerHasFactor: !!me.totpEnabledAt };
}
