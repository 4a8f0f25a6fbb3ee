// An owner invites a colleague: a one-time link (shown once), or an existing account added (lib/staff/operations/staff-accounts.ts).
import { staffWrite } from "@/lib/staff/http";
import { StaffInviteForm } from "@/lib/staff/forms/staff";
import { inviteStaffAsStaff } from "@/lib/staff/operations/staff-accounts";

export const POST = staffWrite(inviteStaffAsStaff, { body: StaffInviteForm, status: 201, args: (req) => [req.body] });
