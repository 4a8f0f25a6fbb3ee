import { staffWrite } from "@/lib/staff/http";
import { StaffRoleForm } from "@/lib/staff/forms/staff";
import { changeRoleAsStaff } from "@/lib/staff/operations/staff-accounts";

/** Changes a staff member's role in the program; 200. */
export const PUT = staffWrite(changeRoleAsStaff, {
  body: StaffRoleForm,
  args: (req) => [req.params.staffId!, req.body, req.version],
});
