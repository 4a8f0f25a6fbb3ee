// Turns the second factor off, with the password (lib/staff/account.ts).
import { accountWrite, disableTotp } from "@/lib/staff/account";
import { TotpDisableForm } from "@/lib/staff/forms/account";

export const POST = accountWrite(TotpDisableForm, (staffId, body) => disableTotp(staffId!, body));
