import { ROLES, type Role } from "@/lib/domain/vocabulary";

/** The roles as <option>s, capitalised ("Owner"), for the staff page's two role pickers. */
export function RoleOptions() {
  return ROLES.map((r) => (
    <option key={r} value={r}>
      {r.charAt(0).toUpperCase() + r.slice(1)}
    </option>
  ));
}

/** What a role picker submits: the form schema rejects anything else with "choose a role". */
export type StaffRole = Role;
