"use client";

import { signOut } from "next-auth/react";
import { useStaffForm } from "@/lib/staff/client";
import { PasswordChangeForm } from "@/lib/staff/forms/account";
import { accountApi } from "@/lib/staff/urls";
import { InputField } from "@/components/ui";
import { CardForm } from "../dashboard/card-form";

/**
 * Change one's own password (the current one first). The account's other sessions end (any other browser or device
 * signed in with the old password); this one stays signed in.
 */
export function PasswordForm() {
  const write = useStaffForm<typeof PasswordChangeForm, { sessionsEnded: number; signedIn: boolean }>({
    schema: PasswordChangeForm,
    method: "POST",
    url: accountApi.password,
    success: (data) =>
      data.sessionsEnded > 0
        ? `Password changed: ${data.sessionsEnded} other session${data.sessionsEnded === 1 ? "" : "s"} signed out`
        : "Password changed",
    // Only if the server could not tell this session from the others (it then ended them all).
    onSuccess: (data) => void (data.signedIn || signOut({ callbackUrl: "/signin" })),
    read: (f) => ({ current: f.text("current"), password: f.text("password") }),
  });
  const { field } = write;
  return (
    <CardForm
      title="Change your password"
      form={write.form}
      pending={write.pending}
      submit="Change password"
      submitIn="sm:col-span-2"
      className="grid gap-3 sm:grid-cols-2"
      noValidate
      footer={
        <p className="mt-3 text-xs text-slate-600">
          Every other session of your account ends (other browsers and devices); this one stays signed in.
        </p>
      }
    >
      <InputField
        label="Current password"
        id="current"
        {...field("current")}
        type="password"
        autoComplete="current-password"
      />
      <InputField
        label="New password"
        hint="At least 12 characters."
        id="new-password"
        {...field("password")}
        type="password"
        autoComplete="new-password"
      />
    </CardForm>
  );
}
