// A change of one's own password, with the current one (lib/staff/account.ts).
import { accountWrite, changeOwnPassword } from "@/lib/staff/account";
import { PasswordChangeForm } from "@/lib/staff/forms/account";

export const POST = accountWrite(PasswordChangeForm, (staffId, body) => changeOwnPassword(staffId!, body));
