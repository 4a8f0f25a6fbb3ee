// A one-time link used (signed out): sets the password of an invited or reset account (lib/staff/account.ts).
import { accountWrite, redeemLink } from "@/lib/staff/account";
import { LinkPasswordForm } from "@/lib/staff/forms/account";

export const POST = accountWrite(LinkPasswordForm, (_, body) => redeemLink(body), { signedIn: false });
