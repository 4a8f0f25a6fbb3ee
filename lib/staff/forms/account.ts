import "@/lib/zod-browser";
import { z } from "zod";
import { NewPassword } from "./password";

/** The account page and the one-time link page (issue 28): a new password, a change, a second factor. */

/** A one-time link used: its token (from the URL's fragment), the new password and, for an invitation, a name. */
export const LinkPasswordForm = z.strictObject({
  token: z.string().min(20, "the link is incomplete").max(100, "the link is not one of ours"),
  password: NewPassword,
  name: z.string().trim().max(255).optional(),
});
export type LinkPasswordForm = z.infer<typeof LinkPasswordForm>;

/** A change of one's own password: the current one is required. */
export const PasswordChangeForm = z.strictObject({
  current: z.string().min(1, "enter your current password").max(200),
  password: NewPassword,
});
export type PasswordChangeForm = z.infer<typeof PasswordChangeForm>;

/** The code of an authenticator app, to confirm a TOTP enrolment. */
export const TotpCodeForm = z.strictObject({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, "enter the 6-digit code your app shows"),
});
export type TotpCodeForm = z.infer<typeof TotpCodeForm>;

/** Turning the second factor off: the password again. */
export const TotpDisableForm = z.strictObject({ password: z.string().min(1, "enter your password").max(200) });
export type TotpDisableForm = z.infer<typeof TotpDisableForm>;
