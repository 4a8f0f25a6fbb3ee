// A change of one's own password, with the current one; the account's other sessions end (lib/staff/account.ts).
import { accountWrite, changeOwnPassword } from "@/lib/staff/account";
import { PasswordChangeForm } from "@/lib/staff/forms/account";

export const POST = accountWrite(PasswordChangeForm, (staffId, body, sessionId) =>
  changeOwnPassword(staffId!, body, sessionId),
);
