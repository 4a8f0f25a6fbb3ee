import { staffWrite } from "@/lib/staff/http";
import { StaffDisabledForm } from "@/lib/staff/forms";
import { setStaffDisabledAsStaff } from "@/lib/staff/operations";

export const PUT = staffWrite({
  permission: "staff.manage",
  body: StaffDisabledForm,
  run: (req, tx) => setStaffDisabledAsStaff(tx, req.staff, req.params.staffId!, req.body),
});
