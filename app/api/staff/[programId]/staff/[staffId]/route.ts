// An owner removes a member from the program; their sessions end (lib/staff/operations/staff-accounts.ts).
import { staffWrite } from "@/lib/staff/http";
import { removeStaffAsStaff } from "@/lib/staff/operations/staff-accounts";

export const DELETE = staffWrite(removeStaffAsStaff, { args: (req) => [req.params.staffId!] });
