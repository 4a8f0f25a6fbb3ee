import { STAFF_ROLES } from "@/lib/staff/forms";

/** The roles as <option>s, capitalised ("Owner"), for the staff page's two role pickers. */
export function RoleOptions() {
  return STAFF_ROLES.map((r) => (
    <option key={r} value={r}>
      {r.charAt(0).toUpperCase() + r.slice(1)}
    </option>
  ));
}

export type StaffRole = (typeof STAFF_ROLES)[number];
