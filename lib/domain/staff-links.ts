/**
 * One-time links for staff (issue 28): an owner's invitation to a program, and an owner's password reset. No mail
 * server: the dashboard shows the link once, the CLI prints it. The token is 32 random bytes (base64url) and only
 * its SHA-256 is stored; a link is used once (marked used in the transaction that sets the password, by a
 * conditional update, so two uses racing cannot both pass) and expires on real time (security time, never a
 * program's clock). The token travels in the URL's fragment (`/account/welcome#…`), which browsers never send to
 * the server, so it is in no access log.
 */
import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Tx } from "@/lib/db/types";
import { conflict, linkInvalid } from "@/lib/errors";
import { hashStaffPassword } from "./staff";
import { revokeAllStaffSessions } from "./staff-sessions";
import { realTime, realTimeMs } from "./real-time";
import type { Role } from "./vocabulary";

export type StaffLinkKind = "invite" | "reset";

/** How long a link lasts: an invitation three days, a reset one day. */
export const LINK_LIFETIME_HOURS: Record<StaffLinkKind, number> = { invite: 72, reset: 24 };

/** Where a link's token is read (the fragment: never sent to the server). */
export const linkPath = (token: string) => `/account/welcome#${token}`;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * A new one-time link. An earlier unused link of the same kind for the same person (and program) stops working:
 * only the last one shown is good.
 */
export async function createStaffLink(
  tx: Tx,
  input: {
    kind: StaffLinkKind;
    email: string;
    programId?: string;
    role?: Role;
    name?: string | null;
    staffId?: string;
    createdById: string | null;
  },
): Promise<{ token: string; path: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(realTimeMs() + LINK_LIFETIME_HOURS[input.kind] * 3_600_000);
  await tx.staffLink.deleteMany({
    where: {
      kind: input.kind,
      email: input.email,
      usedAt: null,
      ...(input.kind === "invite" ? { programId: input.programId } : {}),
    },
  });
  await tx.staffLink.create({
    data: {
      tokenHash: hashToken(token),
      kind: input.kind,
      email: input.email,
      programId: input.programId ?? null,
      role: input.role ?? null,
      name: input.name ?? null,
      staffId: input.staffId ?? null,
      createdById: input.createdById,
      expiresAt,
    },
  });
  return { token, path: linkPath(token), expiresAt };
}

/** Ends the unused links of an account (removed from a program, disabled): none of them may be used afterwards. */
export async function dropStaffLinks(tx: Tx, where: { email: string; programId?: string }) {
  await tx.staffLink.deleteMany({ where: { ...where, usedAt: null } });
}

export interface UsedLink {
  kind: StaffLinkKind;
  staffId: string;
  email: string;
  /** The program an invitation was to (null for a reset). */
  programId: string | null;
  role: string | null;
  sessionsEnded?: number;
}

/**
 * Uses a link: sets the password (an invitation creates the account and its membership; a reset replaces the
 * password and ends every session of the account) and marks the link used, in one transaction. Unknown, used and
 * expired links are one answer, 410 `link_invalid`, and change nothing.
 */
export async function redeemStaffLink(
  prisma: PrismaClient,
  input: { token: string; password: string; name?: string },
  /** Runs in the same transaction once the link is used (the caller's audit rows). */
  onUsed: (tx: Tx, used: UsedLink) => Promise<void>,
): Promise<UsedLink> {
  // The link is looked up before the password is hashed: an unknown token must not cost the server a cost-12 bcrypt
  // (a quarter second of CPU) on this unauthenticated endpoint. Hashed outside the transaction so that bcrypt holds no
  // lock; the transaction checks the link again, since it may have been used in between.
  const tokenHash = hashToken(input.token);
  const unused = (link: { usedAt: Date | null; expiresAt: Date } | null, now: Date) =>
    link !== null && !link.usedAt && link.expiresAt > now;
  const seen = await prisma.staffLink.findUnique({ where: { tokenHash }, select: { usedAt: true, expiresAt: true } });
  if (!unused(seen, realTime())) throw linkInvalid();
  const passwordHash = await hashStaffPassword(input.password);
  return prisma.$transaction(async (tx) => {
    const now = realTime();
    const link = await tx.staffLink.findUnique({ where: { tokenHash } });
    if (!link || !unused(link, now)) throw linkInvalid();
    const { count } = await tx.staffLink.updateMany({
      where: { id: link.id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (count !== 1) throw linkInvalid();
    if (link.kind === "invite") {
      const existing = await tx.staffUser.findUnique({ where: { email: link.email }, select: { id: true } });
      if (existing)
        throw conflict(
          "An account with this e-mail exists already: sign in with it, and ask an owner to add it to the program.",
        );
      const program = link.programId
        ? await tx.program.findUnique({ where: { id: link.programId }, select: { id: true } })
        : null;
      if (!program) throw linkInvalid();
      const user = await tx.staffUser.create({
        data: { email: link.email, passwordHash, name: input.name?.trim() || link.name || null },
        select: { id: true },
      });
      await tx.staffMembership.create({
        data: { staffId: user.id, programId: program.id, role: link.role ?? "viewer" },
      });
      const used: UsedLink = {
        kind: "invite",
        staffId: user.id,
        email: link.email,
        programId: program.id,
        role: link.role,
      };
      await onUsed(tx, used);
      return used;
    }
    const account = link.staffId
      ? await tx.staffUser.findUnique({ where: { id: link.staffId }, select: { id: true } })
      : null;
    if (!account) throw linkInvalid();
    await tx.staffUser.update({ where: { id: account.id }, data: { passwordHash } });
    const sessionsEnded = await revokeAllStaffSessions(tx, account.id);
    const used: UsedLink = {
      kind: "reset",
      staffId: account.id,
      email: link.email,
      programId: null,
      role: null,
      sessionsEnded,
    };
    await onUsed(tx, used);
    return used;
  });
}
