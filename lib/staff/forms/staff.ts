import "@/lib/zod-browser";
import { z } from "zod";
import { ROLES } from "@/lib/domain/vocabulary";
import { NewPassword } from "./password";

/** Staff accounts: a new member, a role, disabling. */

const StaffRole = z.enum(ROLES, "choose a role");

export const StaffForm = z.strictObject({
  email: z.string().trim().toLowerCase().max(255).pipe(z.email("must be an e-mail address")),
  name: z.string().trim().min(1, "a name is required").max(255),
  password: NewPassword,
  role: StaffRole,
});
export type StaffForm = z.infer<typeof StaffForm>;

export const StaffRoleForm = z.strictObject({ role: StaffRole });
export type StaffRoleForm = z.infer<typeof StaffRoleForm>;

export const StaffDisabledForm = z.strictObject({ disabled: z.boolean("must be true or false") });
export type StaffDisabledForm = z.infer<typeof StaffDisabledForm>;

/** An invitation (owners): the e-mail, the role, optionally the name the link pre-fills. */
export const StaffInviteForm = z.strictObject({
  email: z.string().trim().toLowerCase().max(255).pipe(z.email("must be an e-mail address")),
  name: z.string().trim().max(255).optional(),
  role: StaffRole,
});
export type StaffInviteForm = z.infer<typeof StaffInviteForm>;

/** The program's "staff must have a second factor" setting (owners). */
export const SecondFactorSettingForm = z.strictObject({ required: z.boolean("must be true or false") });
export type SecondFactorSettingForm = z.infer<typeof SecondFactorSettingForm>;
