import { staffWrite } from "@/lib/staff/http";
import { StaffRoleForm } from "@/lib/staff/forms";
import { changeRoleAsStaff } from "@/lib/staff/operations";

export const PUT = staffWrite({
  permission: "staff.manage",
  body: StaffRoleForm,
  run: (req, tx) => changeRoleAsStaff(tx, req.staff, req.params.staffId!, req.body),
});
