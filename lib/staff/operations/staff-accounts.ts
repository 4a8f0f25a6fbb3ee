import "server-only";
import { query, sql } from "@/lib/db/sql";
import type { Tx } from "@/lib/db/types";
import { requireRow } from "@/lib/db/require-row";
import { conflict, notFound } from "@/lib/errors";
import { createStaff } from "@/lib/domain/staff";
import { revokeAllStaffSessions } from "@/lib/domain/staff-sessions";
import { unlockAccount } from "@/lib/domain/sign-in-throttle";
import { createStaffLink, dropStaffLinks } from "@/lib/domain/staff-links";
import { audited } from "../audit";
import { staffOperation, type StaffContext } from "../authz";
import { nextVersion, requireVersion } from "../versions";
import type {
  SecondFactorSettingForm,
  StaffDisabledForm,
  StaffForm,
  StaffInviteForm,
  StaffRoleForm,
} from "../forms/staff";

/**
 * Staff management (`staff.manage`, owners only). The account's `disabledAt` is account-wide, so it may only be
 * changed by someone who owns every program the account belongs to; and every program must keep at least one
 * active owner. The programs' rows are locked first, so two owners demoting or disabling each other at once
 * cannot both succeed.
 */

async function lockPrograms(tx: Tx, programIds: string[]) {
  const ids = [...new Set(programIds)].sort();
  await query(
    tx,
    sql`SELECT id FROM "Program" WHERE id IN (SELECT (jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))::uuid) ORDER BY id FOR UPDATE`,
  );
}

/** Whether `programId` keeps an active owner other than `staffId`. */
async function otherActiveOwner(tx: Tx, programId: string, staffId: string) {
  const count = await tx.staffMembership.count({
    where: { programId, role: "owner", staffId: { not: staffId }, staff: { disabledAt: null } },
  });
  return count > 0;
}

const lastOwner = () => conflict("The program must keep at least one active owner.");

/** A member of the staff member's program, with its role there and its account. */
async function memberIn(tx: Tx, staff: StaffContext, staffId: string) {
  const membership = await requireRow(
    staffId,
    (id) =>
      tx.staffMembership.findUnique({
        where: { staffId_programId: { staffId: id, programId: staff.programId } },
        select: { role: true, staff: { select: { id: true, email: true, disabledAt: true } } },
      }),
    () => notFound("staff member"),
  );
  return { role: membership.role, ...membership.staff };
}

/**
 * The account's memberships, when the acting owner owns every program the account belongs to (what is
 * account-wide, its disabled state and its password, is only theirs to change); else 409.
 */
async function ownsEveryProgramOf(tx: Tx, staff: StaffContext, staffId: string, email: string, what: string) {
  const memberships = await tx.staffMembership.findMany({
    where: { staffId },
    select: { programId: true, role: true },
  });
  const owned = new Set(
    (
      await tx.staffMembership.findMany({
        where: { staffId: staff.staffId, role: "owner" },
        select: { programId: true },
      })
    ).map((m) => m.programId),
  );
  if (memberships.some((m) => !owned.has(m.programId))) {
    throw conflict(`${email} also belongs to a program you do not own: only its owners can ${what}.`);
  }
  return memberships;
}

export const createStaffAsStaff = staffOperation("staff.manage", async (tx, staff, input: StaffForm) => {
  // An existing account may belong to other programs whose owners this owner is not: adding it here is for the CLI.
  const existing = await tx.staffUser.findUnique({ where: { email: input.email }, select: { id: true } });
  if (existing) {
    throw conflict("A staff account with this e-mail already exists.", [
      { path: "email", message: "already has an account" },
    ]);
  }
  const created = await createStaff(tx, {
    programId: staff.programId,
    email: input.email,
    name: input.name,
    password: input.password,
    role: input.role,
  });
  // Never the password or its hash.
  await audited(tx, staff, "staff.create", { type: "staff", id: created.staffId }, null, {
    email: created.email,
    name: input.name,
    role: input.role,
  });
  return { id: created.staffId, email: created.email, name: input.name, role: input.role };
});

export const changeRoleAsStaff = staffOperation(
  "staff.manage",
  async (tx, staff, staffId: string, input: StaffRoleForm, version?: string) => {
    if (staffId === staff.staffId) throw conflict("You cannot change your own role: ask another owner.");
    await lockPrograms(tx, [staff.programId]);
    await requireVersion(tx, staff, "staff", staffId, version);
    const member = await memberIn(tx, staff, staffId);
    if (member.role === input.role) throw conflict(`${member.email} is already ${input.role}.`);
    if (member.role === "owner" && !member.disabledAt && !(await otherActiveOwner(tx, staff.programId, staffId)))
      throw lastOwner();
    await tx.staffMembership.update({
      where: { staffId_programId: { staffId, programId: staff.programId } },
      data: { role: input.role },
    });
    await audited(
      tx,
      staff,
      "staff.role",
      { type: "staff", id: staffId },
      { email: member.email, role: member.role },
      { role: input.role },
    );
    return { id: staffId, role: input.role, version: await nextVersion(tx, staff, "staff", staffId) };
  },
);

export const setStaffDisabledAsStaff = staffOperation(
  "staff.manage",
  async (tx, staff, staffId: string, input: StaffDisabledForm, version?: string) => {
    if (staffId === staff.staffId) throw conflict("You cannot disable or re-enable your own account.");
    await requireVersion(tx, staff, "staff", staffId, version);
    const member = await memberIn(tx, staff, staffId);
    if (!!member.disabledAt === input.disabled)
      throw conflict(`${member.email} is already ${input.disabled ? "disabled" : "active"}.`);
    const memberships = await ownsEveryProgramOf(tx, staff, staffId, member.email, "disable or re-enable the account");
    await lockPrograms(
      tx,
      memberships.map((m) => m.programId),
    );
    if (input.disabled) {
      for (const m of memberships)
        if (m.role === "owner" && !(await otherActiveOwner(tx, m.programId, staffId))) throw lastOwner();
    }
    const disabledAt = input.disabled ? new Date() : null;
    await tx.staffUser.update({ where: { id: staffId }, data: { disabledAt } });
    // Disabling also ends the account's sessions, so re-enabling it later does not revive them.
    if (input.disabled) await revokeAllStaffSessions(tx, staffId);
    await audited(
      tx,
      staff,
      input.disabled ? "staff.disable" : "staff.enable",
      { type: "staff", id: staffId },
      { email: member.email, disabledAt: member.disabledAt },
      { disabledAt },
    );
    return {
      id: staffId,
      disabled: input.disabled,
      disabledAt,
      version: await nextVersion(tx, staff, "staff", staffId),
    };
  },
);

/**
 * An owner ends a member's sign-in lock (and the backoff of every address's failures against the account), audited
 * in the program; the lock is the account's, so it ends for every program the account belongs to.
 */
export const unlockStaffAsStaff = staffOperation("staff.manage", async (tx, staff, staffId: string) => {
  const member = await memberIn(tx, staff, staffId);
  const wasLocked = await unlockAccount(tx, member.email);
  await audited(
    tx,
    staff,
    "staff.unlock",
    { type: "staff", id: staffId },
    { email: member.email, wasLocked },
    {
      locked: false,
    },
  );
  return { id: staffId, wasLocked };
});

/**
 * An owner invites a colleague: an e-mail with no account gets a one-time link (shown once, never stored: only its
 * hash), which sets the password and creates the account with the role in this program; an existing account is
 * added to the program at once with the role (its password stays its own). Audited, never the token.
 */
export const inviteStaffAsStaff = staffOperation("staff.manage", async (tx, staff, input: StaffInviteForm) => {
  const existing = await tx.staffUser.findUnique({
    where: { email: input.email },
    select: { id: true, memberships: { where: { programId: staff.programId }, select: { role: true } } },
  });
  if (existing) {
    if (existing.memberships.length > 0)
      throw conflict(`${input.email} is already a member of this program.`, [
        { path: "email", message: "is already a member" },
      ]);
    await tx.staffMembership.create({ data: { staffId: existing.id, programId: staff.programId, role: input.role } });
    await audited(tx, staff, "staff.add_existing", { type: "staff", id: existing.id }, null, {
      email: input.email,
      role: input.role,
    });
    return { email: input.email, role: input.role, added: true as const, path: null, expiresAt: null };
  }
  const link = await createStaffLink(tx, {
    kind: "invite",
    email: input.email,
    programId: staff.programId,
    role: input.role,
    name: input.name || null,
    createdById: staff.staffId,
  });
  await audited(tx, staff, "staff.invite", { type: "staff_invite", id: null }, null, {
    email: input.email,
    role: input.role,
    expiresAt: link.expiresAt,
  });
  return { email: input.email, role: input.role, added: false as const, path: link.path, expiresAt: link.expiresAt };
});

/**
 * An owner's password reset for a member: a one-time link (24 hours) that sets a new password and ends every
 * session of the account. The password is account-wide, so only an owner of every program the account belongs to
 * may; one's own password is changed on the account page, with the current one.
 */
export const resetLinkAsStaff = staffOperation("staff.manage", async (tx, staff, staffId: string) => {
  if (staffId === staff.staffId) throw conflict("Change your own password on your account page.");
  const member = await memberIn(tx, staff, staffId);
  await ownsEveryProgramOf(tx, staff, staffId, member.email, "reset its password");
  const link = await createStaffLink(tx, {
    kind: "reset",
    email: member.email,
    staffId,
    createdById: staff.staffId,
  });
  await audited(tx, staff, "staff.reset_link", { type: "staff", id: staffId }, null, {
    email: member.email,
    expiresAt: link.expiresAt,
  });
  return { id: staffId, email: member.email, path: link.path, expiresAt: link.expiresAt };
});

/**
 * An owner removes a member from the program: the membership goes, the account's unused invitations to it too, and
 * every session of the account ends (its other programs sign in again). The program keeps an active owner.
 */
export const removeStaffAsStaff = staffOperation("staff.manage", async (tx, staff, staffId: string) => {
  if (staffId === staff.staffId) throw conflict("You cannot remove yourself: ask another owner.");
  await lockPrograms(tx, [staff.programId]);
  const member = await memberIn(tx, staff, staffId);
  if (member.role === "owner" && !member.disabledAt && !(await otherActiveOwner(tx, staff.programId, staffId)))
    throw lastOwner();
  await tx.staffMembership.delete({ where: { staffId_programId: { staffId, programId: staff.programId } } });
  await dropStaffLinks(tx, { email: member.email, programId: staff.programId });
  const sessionsEnded = await revokeAllStaffSessions(tx, staffId);
  await audited(
    tx,
    staff,
    "staff.remove",
    { type: "staff", id: staffId },
    { email: member.email, role: member.role },
    null,
  );
  return { id: staffId, removed: true, sessionsEnded };
});

/**
 * An owner's setting: every member needs a second factor to open the program. The owner turning it on must have
 * one, so the setting never locks out the one who set it.
 */
export const setSecondFactorRequiredAsStaff = staffOperation(
  "staff.manage",
  async (tx, staff, input: SecondFactorSettingForm) => {
    const program = await tx.program.findUniqueOrThrow({
      where: { id: staff.programId },
      select: { requireStaffTotp: true },
    });
    if (input.required) {
      const me = await tx.staffUser.findUniqueOrThrow({
        where: { id: staff.staffId },
        select: { totpEnabledAt: true },
      });
      if (!me.totpEnabledAt)
        throw conflict("Set up your own second factor first (your account page), then require it of everyone.");
    }
    await tx.program.update({ where: { id: staff.programId }, data: { requireStaffTotp: input.required } });
    await audited(
      tx,
      staff,
      "staff.second_factor_setting",
      { type: "program", id: staff.programId },
      { requireStaffTotp: program.requireStaffTotp },
      { requireStaffTotp: input.required },
    );
    const without = await tx.staffMembership.count({
      where: { programId: staff.programId, staff: { totpEnabledAt: null, disabledAt: null } },
    });
    return { required: input.required, membersWithoutSecondFactor: without };
  },
);
