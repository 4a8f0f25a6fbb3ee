// Confirms a TOTP enrolment with a current code; answers the recovery codes, once (lib/staff/account.ts).
import { accountWrite, confirmTotp } from "@/lib/staff/account";
import { TotpCodeForm } from "@/lib/staff/forms/account";

export const POST = accountWrite(TotpCodeForm, (staffId, body) => confirmTotp(staffId!, body));
