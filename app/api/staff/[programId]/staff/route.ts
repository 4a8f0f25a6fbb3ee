import { staffWrite } from "@/lib/staff/http";
import { StaffForm } from "@/lib/staff/forms/staff";
import { createStaffAsStaff } from "@/lib/staff/operations/staff-accounts";

/** Creates a staff account with a role in the program; 201. */
export const POST = staffWrite(createStaffAsStaff, { body: StaffForm, status: 201, args: (req) => [req.body] });
