import "server-only";
import { getServerSession } from "next-auth";
import { getToken } from "next-auth/jwt";
import { cookies, headers } from "next/headers";
import { forbidden as forbiddenPage, notFound, redirect } from "next/navigation";
import { cache } from "react";
import { db } from "@/lib/db/client";
import { signInRequired, forbidden, secondFactorRequired } from "@/lib/errors";
import { authOptions } from "./auth";
import { authorize, can, resolveStaff, type Permission, type StaffContext } from "./authz";

/**
 * The signed-in staff member of a request: the session cookie (lib/staff/auth.ts) resolved to a context in the
 * program (lib/staff/authz.ts) and checked against a permission. Apart from authz.ts, so that code which only
 * resolves contexts and checks roles (operations, the CLI, tests) does not load next-auth or its secret.
 */

/** The signed-in staff member's id from the session cookie, or null. */
export async function sessionStaffId(): Promise<string | null> {
  const session = (await getServerSession(authOptions)) as { staffId?: string } | null;
  return session?.staffId ?? null;
}

/**
 * The request's session: its staff member and the id of its session row (`sid`, lib/domain/staff-sessions.ts), or
 * null when signed out. getServerSession has checked the session is live; the sid is read from the same cookie here
 * (it is in no answer to the browser: /api/auth/session gives only the staff id). Either cookie name: the
 * `__Secure-` one on https. A sid that cannot be read is null, and the caller keeps no session alive.
 */
export async function currentSession(): Promise<{ staffId: string; sid: string | null } | null> {
  const staffId = await sessionStaffId();
  if (!staffId) return null;
  const req = { cookies: await cookies(), headers: await headers() };
  for (const secureCookie of [true, false]) {
    const token = await getToken({ req: req as never, secret: authOptions.secret, secureCookie });
    if (token?.staffId === staffId && typeof token.sid === "string") return { staffId, sid: token.sid };
  }
  return { staffId, sid: null };
}

/** The session's staff member in a program: looked up once per server render (layout and page share it). */
const current = cache(async (programId: string): Promise<{ staffId: string | null; staff: StaffContext | null }> => {
  const staffId = await sessionStaffId();
  return { staffId, staff: staffId ? await resolveStaff(await db(), staffId, programId) : null };
});

/** For route handlers, server actions and operations: the context, or a 401/403 problem. */
export async function requireStaff(programId: string, permission: Permission): Promise<StaffContext> {
  const { staffId, staff } = await current(programId);
  if (!staffId) throw signInRequired();
  // Not a member of this program: answered like a missing permission, without saying whether it exists.
  if (!staff) throw forbidden("You do not have access to this program.");
  if (staff.secondFactorMissing) throw secondFactorRequired();
  authorize(staff, permission);
  return staff;
}

/**
 * For pages: the context when allowed; sign-in when signed out; not found (404) for a program the staff member
 * does not belong to; the program's forbidden page (403, app/dashboard/[programId]/forbidden.tsx) when the role
 * lacks the permission. Dashboard pages render whole before the answer starts, so these statuses are real.
 */
export async function requirePage(programId: string, permission: Permission): Promise<StaffContext> {
  const { staffId, staff } = await current(programId);
  if (!staffId) redirect("/signin");
  if (!staff) notFound();
  if (staff.secondFactorMissing) redirect(`/account?required=${programId}`);
  if (!can(staff.role, permission)) forbiddenPage();
  return staff;
}
