// Starts a TOTP enrolment: the secret and its otpauth:// URI (lib/staff/account.ts).
import { accountWrite, startTotp } from "@/lib/staff/account";

export const POST = accountWrite(null, (staffId) => startTotp(staffId!));
