import type { Role } from "@/lib/domain/staff";

/**
 * What each role may do, in one table. Every dashboard read and write checks one of these on the server
 * (lib/staff/session.ts and lib/staff/http.ts); the UI hides what a role cannot do only as a courtesy.
 */
export const PERMISSIONS = {
  "customers.read": ["owner", "manager", "support", "viewer"],
  "customers.write": ["owner", "manager", "support"],
  "balance.adjust": ["owner", "manager", "support"],
  "customers.delete": ["owner", "manager", "support"],
  "program.read": ["owner", "manager", "support", "viewer"],
  "program.manage": ["owner", "manager"],
  "apikeys.manage": ["owner", "manager"],
  "audit.read": ["owner", "manager"],
  "staff.manage": ["owner"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export const can = (role: Role | null | undefined, permission: Permission): boolean =>
  !!role && (PERMISSIONS[permission] as readonly Role[]).includes(role);
