// An owner ends a member's sign-in lock: DELETE, 200 (lib/staff/operations/staff-accounts.ts unlockStaffAsStaff).
import { staffWrite } from "@/lib/staff/http";
import { unlockStaffAsStaff } from "@/lib/staff/operations/staff-accounts";

export const DELETE = staffWrite(unlockStaffAsStaff, { args: (req) => [req.params.staffId!] });
