import "server-only";
import bcrypt from "bcryptjs";
import type { Db } from "@/lib/db/types";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { requireProgram } from "./programs";
import { revokeAllStaffSessions } from "./staff-sessions";
import type { Role } from "./vocabulary";
import { invalidInput, notFound } from "@/lib/errors";

const BCRYPT_COST = 12;

/** Passwords: at least 12 characters; bcrypt reads at most 72 bytes. The dashboard's form (forms/password.ts) says the same. */
export const PASSWORD_LENGTH = { min: 12, max: 72 } as const;

export function checkPassword(password: string) {
  if (password.length < PASSWORD_LENGTH.min || Buffer.byteLength(password) > PASSWORD_LENGTH.max) {
    throw invalidInput(
      `The password must be at least ${PASSWORD_LENGTH.min} characters and at most ${PASSWORD_LENGTH.max} bytes (accented letters count 2).`,
    );
  }
}

/** A password's hash as every staff password is stored (bcrypt, cost 12). Checks the length first. */
export async function hashStaffPassword(password: string): Promise<string> {
  checkPassword(password);
  return bcrypt.hash(password, BCRYPT_COST);
}

/** Whether `password` is the account's (for a change of one's own password). */
export async function staffPasswordMatches(passwordHash: string, password: string): Promise<boolean> {
  return Buffer.byteLength(password) <= 200 && bcrypt.compare(password, passwordHash);
}

/**
 * Gives the account with this e-mail `role` in the program, creating the account if there is none. An existing
 * account keeps its password (`accountExisted: true`): adding someone to a second program never resets it;
 * setStaffPassword does that, on purpose.
 */
export async function createStaff(
  db: Db,
  input: { email: string; password: string; programId: string; role: Role; name?: string },
) {
  const email = input.email.trim().toLowerCase();
  checkPassword(input.password);
  await requireProgram(db, input.programId);
  let staff = await db.staffUser.findUnique({ where: { email }, select: { id: true } });
  const accountExisted = !!staff;
  if (!staff) {
    const passwordHash = await bcrypt.hash(input.password, BCRYPT_COST);
    staff = await db.staffUser.upsert({
      where: { email },
      create: { email, passwordHash, name: input.name ?? null },
      update: {},
      select: { id: true },
    });
  }
  await db.staffMembership.upsert({
    where: { staffId_programId: { staffId: staff.id, programId: input.programId } },
    create: { staffId: staff.id, programId: input.programId, role: input.role },
    update: { role: input.role },
  });
  return { staffId: staff.id, email, role: input.role, accountExisted };
}

/**
 * Sets a staff account's password (operators, through the CLI) and ends all of the account's sessions in the same
 * transaction: whoever held the old password is signed out at their next request.
 */
export async function setStaffPassword(db: PrismaClient, input: { email: string; password: string }) {
  checkPassword(input.password);
  const email = input.email.trim().toLowerCase();
  const passwordHash = await bcrypt.hash(input.password, BCRYPT_COST);
  return db.$transaction(async (tx) => {
    const staff = await tx.staffUser.findUnique({ where: { email }, select: { id: true } });
    if (!staff) throw notFound("staff account");
    await tx.staffUser.update({ where: { id: staff.id }, data: { passwordHash } });
    const sessionsEnded = await revokeAllStaffSessions(tx, staff.id);
    return { email, passwordChanged: true, sessionsEnded };
  });
}

// A fixed hash to compare against when the e-mail is unknown, so both paths take bcrypt's time.
const DUMMY_HASH = "$2b$12$hbNe55ieRCj6iu0/cC7DJOZPhyvfmRQw88.lEKRrvgT4idXgZfOKi";

/** The staff user for an e-mail and password, or null. Same cost whether or not the e-mail exists. */
export async function verifyStaffPassword(db: Db, email: string, password: string) {
  const user = await db.staffUser.findUnique({ where: { email: email.trim().toLowerCase() } });
  const ok = await bcrypt.compare(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok || user.disabledAt) return null;
  // The second factor's secret only when enrolment is confirmed: the sign-in then needs a code too.
  return { id: user.id, email: user.email, name: user.name, totpSecret: user.totpEnabledAt ? user.totpSecret : null };
}

/** The programs a staff member may open, with the role in each (none for a disabled account). */
export async function membershipsOf(db: Db, staffId: string) {
  return db.staffMembership.findMany({
    where: { staffId, staff: { disabledAt: null } },
    select: { programId: true, role: true, program: { select: { name: true } } },
    orderBy: { createdAt: "asc" },
  });
}
