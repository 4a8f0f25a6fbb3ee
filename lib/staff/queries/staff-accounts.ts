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
      staff: { select: { id: true, email: true, name: true, disabledAt: true } },
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
    /** When the account's sign-in lock ends (failed sign-ins from addresses it never signed in from), or null. */
    lockedUntil: locks.get(m.staff.email) ?? null,
    /** The membership's version, for the role form (a stale change is refused). */
    version: m.updatedAt,
  }));
}
