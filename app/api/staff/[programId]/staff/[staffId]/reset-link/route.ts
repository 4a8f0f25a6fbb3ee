// An owner's password reset for a member: a one-time link, shown once (lib/staff/operations/staff-accounts.ts).
import { staffWrite } from "@/lib/staff/http";
import { resetLinkAsStaff } from "@/lib/staff/operations/staff-accounts";

export const POST = staffWrite(resetLinkAsStaff, { status: 201, args: (req) => [req.params.staffId!] });
