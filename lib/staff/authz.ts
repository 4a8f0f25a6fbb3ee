/**
 * Staff authorisation: the one place that decides what a signed-in staff member may read or change.
 *
 * Building a dashboard page or write on top of it (e.g. rewards, coupon pools, earning flows, webhooks, staff):
 *  - Page / data loader (server component): `const staff = await requirePage(programId, "program.read")` (the
 *    session's side, lib/staff/session.ts)
 *    — signed out → /signin, not a member → 404, role without the permission → 403 with the program's forbidden page;
 *    then its data from lib/staff/queries/<resource>.ts.
 *  - The write itself (lib/staff/operations/<resource>.ts):
 *    `export const xAsStaff = staffOperation(permission, async (tx, staff, ...args) => …)` — the permission is
 *    stated there once and checked on every call; then the lib/domain function (the same one the /v1 API uses),
 *    then `audited(tx, staff, action, entity, before, after)` (or `auditedUpdate`) from lib/staff/audit.ts in
 *    the same transaction (add the action name to AUDIT_ACTIONS there). A forged request therefore meets the
 *    same checks as a click. A JSON read that is not a page's is a `staffQuery` (lib/staff/queries/<resource>.ts).
 *  - JSON route (app/api/staff/[programId]/…): `staffWrite(operation, { body, status, args: (req) => [...] })` /
 *    `staffRead(query, { args })` from lib/staff/http.ts; they call `requireStaff` with the operation's own
 *    `.permission` (401/403 problem+json) before reading the body, validate it with zod and run the write in
 *    one transaction.
 *  - Server action: `const staff = await requireStaff(programId, operation.permission)`, then
 *    `(await db()).$transaction((tx) => operation(tx, staff, input))`.
 *  - Form schemas shared by the browser (inline errors) and the server live in lib/staff/forms/<resource>.ts; in a client
 *    component, `useStaffWrite({ schema, method, url, success, invalidate })` from lib/staff/client.ts validates,
 *    sends, shows field errors and toasts, invalidates react-query caches and refreshes the page.
 *  - Navigation: add the page to NAV in lib/staff/nav.ts with the permission it needs.
 *  - UI: pass `can(staff.role, permission)` booleans to client components to hide controls — a courtesy only.
 *  - A new kind of change: add a permission row below, naming the roles that hold it.
 *
 * The role is read from StaffMembership on every request (not from the session token), so a role change or
 * a disabled account takes effect at the next request.
 */
import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { onProgramClock } from "@/lib/domain/clock";
import { memberOf, ROLES, type Role } from "@/lib/domain/vocabulary";
import { forbidden } from "@/lib/errors";
import { isUuid } from "@/lib/ids";

/** Role → permissions. viewer reads; support also serves customers; manager also configures; owner also manages staff. */
export const PERMISSIONS = {
  "program.read": ["owner", "manager", "support", "viewer"],
  "customers.read": ["owner", "manager", "support", "viewer"],
  "customers.edit": ["owner", "manager", "support"],
  "balance.adjust": ["owner", "manager", "support"],
  "rewards.redeem": ["owner", "manager", "support"],
  "coupons.assign": ["owner", "manager", "support"],
  "notifications.send": ["owner", "manager", "support"],
  "customers.delete": ["owner", "manager"],
  /** Tiers, rewards, coupon pools, earning flows, webhooks, push endpoint, program settings. */
  "program.manage": ["owner", "manager"],
  /**
   * The keys' names, prefixes, limits and use (never a secret). The page has a read view for roles that may read but
   * not change keys: add a role here to give it that view.
   */
  "apikeys.read": ["owner", "manager"],
  "apikeys.manage": ["owner", "manager"],
  /** Revoke every customer token of the program at once (the /me routes' widgets sign in again): owners only. */
  "tokens.revoke": ["owner"],
  "audit.read": ["owner", "manager"],
  /**
   * Bulk CSV copies of customers, the ledger and redemptions: personal data leaving the system by the million, so
   * not every reader's — support and viewers read one customer or one page at a time.
   */
  "customers.export": ["owner", "manager"],
  /** Who belongs to the program and with which role: every member may see it; only owners change it. */
  "staff.read": ["owner", "manager", "support", "viewer"],
  "staff.manage": ["owner"],
  /** Create a new program (its creator becomes its owner). */
  "programs.create": ["owner"],
  /**
   * "Create a test copy": a test program with this program's configuration and no customers, keys, webhooks or
   * secrets (lib/domain/program-test-copy.ts), whose creator becomes its owner. Managers configure the program, so
   * they may try that configuration on a copy.
   */
  "programs.test_copy": ["owner", "manager"],
  /** Move a test program's clock (its dry run too: it runs every timer due, then rolls back). Everyone reads it. */
  "clock.advance": ["owner", "manager"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export const can = (role: Role | null | undefined, permission: Permission): boolean =>
  !!role && (PERMISSIONS[permission] as readonly Role[]).includes(role);

/** Who is acting, in which program, with which role. Every operation takes one. */
export interface StaffContext {
  staffId: string;
  email: string;
  programId: string;
  programName: string;
  role: Role;
  /** A test program (issue 25): the dashboard says so on every page. */
  programTest: boolean;
  /** A test program's clock, the business time its operations act at (lib/domain/clock.ts); null: live. */
  programClockAt: Date | null;
  /**
   * The program requires a second factor and the account has none yet: the session's pages send it to /account to
   * set one up, its JSON routes answer 403 `second_factor_required` (lib/staff/session.ts). Absent: not the case.
   */
  secondFactorMissing?: boolean;
}

/** Re-exported for the pages and routes that check ids beside their permission checks. */
export { isUuid };

/** The staff member's context in a program, or null (no membership, disabled account, malformed ids). */
export async function resolveStaff(database: Db, staffId: string, programId: string): Promise<StaffContext | null> {
  if (!isUuid(staffId) || !isUuid(programId)) return null;
  const membership = await database.staffMembership.findUnique({
    where: { staffId_programId: { staffId, programId } },
    select: {
      role: true,
      program: { select: { name: true, test: true, clockAt: true, requireStaffTotp: true } },
      staff: { select: { email: true, disabledAt: true, totpEnabledAt: true } },
    },
  });
  if (!membership || membership.staff.disabledAt) return null;
  return {
    staffId,
    email: membership.staff.email,
    programId,
    programName: membership.program.name,
    role: memberOf(ROLES, membership.role),
    programTest: membership.program.test,
    programClockAt: membership.program.clockAt,
    ...(membership.program.requireStaffTotp && !membership.staff.totpEnabledAt ? { secondFactorMissing: true } : {}),
  };
}

/** Throws 403 unless the role holds the permission. Operations call it first, whoever called them. */
export function authorize(staff: StaffContext, permission: Permission): void {
  if (!can(staff.role, permission)) {
    throw forbidden(`Your role (${staff.role}) does not allow this.`);
  }
}

/**
 * A staff write or read that carries its permission: calling it checks the role first (`authorize`), and the
 * JSON routes (`staffWrite` / `staffRead`) read `.permission` to check it again before they read the body. One
 * declaration, two checks that cannot drift apart.
 */
export type Permitted<D, A extends unknown[], R> = ((database: D, staff: StaffContext, ...args: A) => Promise<R>) & {
  readonly permission: Permission;
};

function permitted<D, A extends unknown[], R>(
  permission: Permission,
  run: (database: D, staff: StaffContext, ...args: A) => Promise<R>,
): Permitted<D, A, R> {
  const checked = async (database: D, staff: StaffContext, ...args: A) => {
    authorize(staff, permission);
    return onProgramClock(staff.programId, staff.programClockAt, () => run(database, staff, ...args));
  };
  return Object.assign(checked, { permission });
}

/** A staff write (lib/staff/operations/*): authorise, act through lib/domain, audit, all in the caller's transaction. */
export const staffOperation = <A extends unknown[], R>(
  permission: Permission,
  run: (tx: Tx, staff: StaffContext, ...args: A) => Promise<R>,
) => permitted(permission, run);

/** A staff read served as JSON (lib/staff/queries/*): the same declaration, over any client. */
export const staffQuery = <A extends unknown[], R>(
  permission: Permission,
  run: (db: Db, staff: StaffContext, ...args: A) => Promise<R>,
) => permitted(permission, run);

export type StaffOperation<A extends unknown[], R = unknown> = Permitted<Tx, A, R>;
export type StaffQuery<A extends unknown[], R = unknown> = Permitted<Db, A, R>;
