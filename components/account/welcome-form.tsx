"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { useStaffForm } from "@/lib/staff/client";
import { LinkPasswordForm } from "@/lib/staff/forms/account";
import { accountApi } from "@/lib/staff/urls";
import { InputField, buttonClass } from "@/components/ui";

/**
 * The one-time link's page: the token is read from the URL's fragment (never sent to the server with the page
 * request), the new password chosen here; an invitation also takes a name.
 */
export function WelcomeForm() {
  const [token, setToken] = useState<string | null>(null);
  const [done, setDone] = useState<{ kind: string; email: string } | null>(null);
  useEffect(() => {
    // The fragment is only readable in the browser, once mounted.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setToken(window.location.hash.slice(1));
  }, []);
  const write = useStaffForm<typeof LinkPasswordForm, { kind: string; email: string }>({
    schema: LinkPasswordForm,
    method: "POST",
    url: accountApi.link,
    success: "Password set",
    onSuccess: (data) => {
      setDone(data);
      // The token is spent: keep it out of the address bar and the history.
      window.history.replaceState(null, "", window.location.pathname);
    },
    read: (f) => ({ token: token ?? "", password: f.text("password"), name: f.text("name") || undefined }),
  });
  if (done)
    return (
      <div className="mt-6 space-y-3" role="status">
        <p className="text-sm text-slate-700">
          {done.kind === "invite" ? "Your account is ready" : "Your new password is set"}: {done.email}.
        </p>
        <Link href="/signin" className={`${buttonClass} inline-block`}>
          Sign in
        </Link>
      </div>
    );
  if (token === "")
    return (
      <p className="mt-6 rounded-md bg-red-50 px-3 py-2 text-sm text-red-800" role="alert">
        This page needs the whole link you were given (it ends with a long code after #).
      </p>
    );
  const { field, errors } = write;
  return (
    <form {...write.form} aria-label="Choose your password" className="mt-6 space-y-4" noValidate>
      <InputField label="Your name (optional)" id="name" {...field("name")} autoComplete="name" />
      <InputField
        label="New password"
        hint="At least 12 characters."
        id="password"
        {...field("password")}
        type="password"
        autoComplete="new-password"
        required
      />
      {(errors.form || errors.token) && (
        <p className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800" role="alert">
          {errors.form ?? errors.token}
        </p>
      )}
      <button type="submit" className={`${buttonClass} w-full`} disabled={write.pending || token === null}>
        Set password
      </button>
    </form>
  );
}
