import { staffWrite } from "@/lib/staff/http";
import { StaffForm } from "@/lib/staff/forms";
import { createStaffAsStaff } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "staff.manage",
  body: StaffForm,
  status: 201,
  run: (req, tx) => createStaffAsStaff(tx, req.staff, req.body),
});
