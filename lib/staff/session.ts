import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { db } from "@/lib/db/client";
import type { Role } from "@/lib/domain/staff";
import { AppError } from "@/lib/errors";
import { authOptions } from "./auth";
import { can, type Permission } from "./permissions";

export interface StaffContext {
  staffId: string;
  email: string;
  programId: string;
  programName: string;
  role: Role;
}

/** The signed-in staff member's role in a program, or null (not signed in, no membership, disabled). */
export async function staffContext(programId: string): Promise<StaffContext | null> {
  const session = (await getServerSession(authOptions)) as { staffId?: string; user?: { email?: string } } | null;
  if (!session?.staffId || !/^[0-9a-f-]{36}$/.test(programId)) return null;
  const membership = await (await db()).staffMembership.findUnique({
    where: { staffId_programId: { staffId: session.staffId, programId } },
    select: { role: true, program: { select: { name: true } }, staff: { select: { email: true, disabledAt: true } } },
  });
  if (!membership || membership.staff.disabledAt) return null;
  return { staffId: session.staffId, email: membership.staff.email, programId, programName: membership.program.name, role: membership.role as Role };
}

/** For pages: the context when allowed; sign-in when signed out; a 403 page otherwise. */
export async function requirePage(programId: string, permission: Permission): Promise<StaffContext> {
  const staff = await staffContext(programId);
  if (!staff) redirect("/signin");
  if (!can(staff.role, permission)) redirect(`/dashboard/${programId}/forbidden`);
  return staff;
}

/** For route handlers and operations: throws 401/403 problems. */
export async function requireStaff(programId: string, permission: Permission): Promise<StaffContext> {
  const staff = await staffContext(programId);
  if (!staff) throw new AppError(401, "unauthorized", "Sign in to continue.");
  authorize(staff, permission);
  return staff;
}

export function authorize(staff: StaffContext, permission: Permission) {
  if (!can(staff.role, permission)) {
    throw new AppError(403, "forbidden", `Your role (${staff.role}) does not allow this.`);
  }
}
