/**
 * The signed-in staff member's own account (issue 28), which belongs to no one program: the one-time link page
 * (an invitation or an owner's reset), a change of password, the second factor (TOTP enrolment, recovery codes).
 * Every action is audited in each program the account belongs to (`auditedAccount`). The JSON routes under
 * app/api/account call `accountWrite`: the staff routes' edge (same-origin check, zod, problem+json), with the
 * session's account instead of a program membership.
 */
import "server-only";
import { db } from "@/lib/db/client";
import type { Db } from "@/lib/db/types";
import { parseWith, replyToResponse, withEdge, type SchemaLike } from "@/lib/api/edge";
import { readJsonBody } from "@/lib/api/json-body";
import { conflict, invalidInput, signInRequired } from "@/lib/errors";
import { hashStaffPassword, staffPasswordMatches } from "@/lib/domain/staff";
import { redeemStaffLink } from "@/lib/domain/staff-links";
import { revokeAllStaffSessions } from "@/lib/domain/staff-sessions";
import { newTotpSecret, recoveryCodesLeft, replaceRecoveryCodes, totpStep, totpUri } from "@/lib/domain/staff-factor";
import { realTime } from "@/lib/domain/real-time";
import { auditedAccount } from "./audit";
import { qrCode } from "./qr-code";
import { requireSameOrigin } from "./http";
import { currentSession } from "./session";
import type { LinkPasswordForm, PasswordChangeForm, TotpCodeForm, TotpDisableForm } from "./forms/account";

/**
 * A POST of the account routes: same origin, a JSON body validated by `schema`, then `run` with the session's
 * staff id and session row id (both null when `signedIn` is false: the one-time link page is used signed out).
 */
export function accountWrite<B>(
  schema: SchemaLike<B> | null,
  run: (staffId: string | null, body: B, sessionId: string | null) => Promise<unknown>,
  options: { signedIn: boolean } = { signedIn: true },
) {
  return (req: Request) =>
    withEdge(req, async (edge) => {
      requireSameOrigin(req);
      const session = options.signedIn ? await currentSession() : null;
      if (options.signedIn && !session) throw signInRequired();
      const body = schema ? parseWith(schema)((await readJsonBody(req)).value) : (undefined as B);
      const json = await run(session?.staffId ?? null, body, session?.sid ?? null);
      return replyToResponse({ status: 200, json }, edge);
    });
}

/** The account, or 401 when the session's account is gone or disabled. */
async function accountOf(database: Db, staffId: string) {
  const account = await database.staffUser.findUnique({ where: { id: staffId } });
  if (!account || account.disabledAt) throw signInRequired();
  return account;
}

/** Uses a one-time link: sets the password (creating the invited account), audited in the program(s) concerned. */
export async function redeemLink(input: LinkPasswordForm) {
  const used = await redeemStaffLink(await db(), input, async (tx, link) => {
    await auditedAccount(
      tx,
      { id: link.staffId, email: link.email },
      link.kind === "invite" ? "staff.invite_accepted" : "staff.password_reset",
      link.kind === "invite" ? { role: link.role } : { sessionsEnded: link.sessionsEnded },
      link.programId ? [link.programId] : undefined,
    );
  });
  return { kind: used.kind, email: used.email };
}

/**
 * Changes one's own password: the current one must be given. Every other session of the account ends (whoever else
 * held the old password is out); `sessionId`, the session that made the change, stays signed in. Without it (a
 * session whose id could not be read) every session ends.
 */
export async function changeOwnPassword(staffId: string, input: PasswordChangeForm, sessionId: string | null) {
  const prisma = await db();
  const account = await accountOf(prisma, staffId);
  if (!(await staffPasswordMatches(account.passwordHash, input.current)))
    throw invalidInput("The current password is not right.", [{ path: "current", message: "is not right" }]);
  const passwordHash = await hashStaffPassword(input.password);
  return prisma.$transaction(async (tx) => {
    await tx.staffUser.update({ where: { id: staffId }, data: { passwordHash } });
    const sessionsEnded = await revokeAllStaffSessions(tx, staffId, sessionId);
    await auditedAccount(tx, account, "staff.password_change", { sessionsEnded });
    return { passwordChanged: true, sessionsEnded, signedIn: sessionId !== null };
  });
}

/** Starts a TOTP enrolment: a new secret, kept pending until a code from the app confirms it. */
export async function startTotp(staffId: string) {
  const prisma = await db();
  const account = await accountOf(prisma, staffId);
  if (account.totpEnabledAt) throw conflict("Your second factor is on already: turn it off first to set up a new one.");
  const { secret, uri } = newTotpSecret(account.email);
  await prisma.staffUser.update({ where: { id: staffId }, data: { totpPendingSecret: secret } });
  return { secret, uri };
}

/** Confirms an enrolment with a current code: the second factor is on; ten recovery codes, shown this once. */
export async function confirmTotp(staffId: string, input: TotpCodeForm) {
  const prisma = await db();
  const account = await accountOf(prisma, staffId);
  if (account.totpEnabledAt) throw conflict("Your second factor is on already.");
  if (!account.totpPendingSecret) throw conflict("Start the set-up first: no secret is waiting for a code.");
  const step = totpStep(account.totpPendingSecret, input.code);
  if (step === null)
    throw invalidInput("That code is not the one your app shows now: check the app and try again.", [
      { path: "code", message: "is not the current code" },
    ]);
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.staffUser.updateMany({
      where: { id: staffId, totpEnabledAt: null, totpPendingSecret: account.totpPendingSecret },
      data: {
        totpSecret: account.totpPendingSecret,
        totpPendingSecret: null,
        totpEnabledAt: realTime(),
        totpLastStep: step,
      },
    });
    if (count !== 1) throw conflict("The set-up changed meanwhile: reload the page.");
    const recoveryCodes = await replaceRecoveryCodes(tx, staffId);
    await auditedAccount(tx, account, "staff.totp_enable", { recoveryCodes: recoveryCodes.length });
    return { enabled: true, recoveryCodes };
  });
}

/** Turns the second factor off (the password again); refused while a program of the account requires one. */
export async function disableTotp(staffId: string, input: TotpDisableForm) {
  const prisma = await db();
  const account = await accountOf(prisma, staffId);
  if (!(await staffPasswordMatches(account.passwordHash, input.password)))
    throw invalidInput("The password is not right.", [{ path: "password", message: "is not right" }]);
  if (!account.totpEnabledAt) throw conflict("Your second factor is off already.");
  const requiring = await prisma.staffMembership.findMany({
    where: { staffId, program: { requireStaffTotp: true } },
    select: { program: { select: { name: true } } },
  });
  if (requiring.length > 0)
    throw conflict(`${requiring.map((m) => m.program.name).join(", ")} requires a second factor: it stays on.`);
  return prisma.$transaction(async (tx) => {
    await tx.staffUser.update({
      where: { id: staffId },
      data: { totpSecret: null, totpPendingSecret: null, totpEnabledAt: null, totpLastStep: null },
    });
    await tx.staffRecoveryCode.deleteMany({ where: { staffId } });
    await auditedAccount(tx, account, "staff.totp_disable", { enabled: false });
    return { enabled: false };
  });
}

/** An enrolment's secret, its otpauth:// URI and that URI as a QR code (drawn here, on the server). */
function pendingFactor(secret: string, email: string) {
  const uri = totpUri(secret, email);
  return { secret, uri, qr: qrCode(uri) };
}

/** The account page's data, loaded in one place: never the password hash or the secret of an enabled factor. */
export async function accountPage(staffId: string) {
  const prisma = await db();
  const account = await accountOf(prisma, staffId);
  const memberships = await prisma.staffMembership.findMany({
    where: { staffId },
    select: { role: true, program: { select: { id: true, name: true, requireStaffTotp: true } } },
    orderBy: { createdAt: "asc" },
  });
  return {
    email: account.email,
    name: account.name,
    lastSignInAt: account.lastSignInAt,
    totpEnabledAt: account.totpEnabledAt,
    /** An enrolment started and not confirmed: its secret and URI are shown again until it is. */
    pending: account.totpPendingSecret ? pendingFactor(account.totpPendingSecret, account.email) : null,
    recoveryCodesLeft: account.totpEnabledAt ? await recoveryCodesLeft(prisma, staffId) : 0,
    programs: memberships.map((m) => ({
      id: m.program.id,
      name: m.program.name,
      role: m.role,
      requiresSecondFactor: m.program.requireStaffTotp,
    })),
  };
}
