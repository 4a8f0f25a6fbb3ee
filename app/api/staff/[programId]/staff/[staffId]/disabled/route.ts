import { staffWrite } from "@/lib/staff/http";
import { StaffDisabledForm } from "@/lib/staff/forms/staff";
import { setStaffDisabledAsStaff } from "@/lib/staff/operations/staff-accounts";

/** Disables or re-enables a staff account; 200. */
export const PUT = staffWrite(setStaffDisabledAsStaff, {
  body: StaffDisabledForm,
  args: (req) => [req.params.staffId!, req.body, req.version],
});
