"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { InputField, buttonClass } from "@/components/ui";
import { SECOND_FACTOR_NEEDED, SIGN_IN_THROTTLED } from "@/lib/staff/sign-in-errors";

export function SignInForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The account has a second factor: the form asks for its code (the e-mail and password stay as typed).
  const [needsCode, setNeedsCode] = useState(false);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const result = await signIn("credentials", {
      email: form.get("email"),
      password: form.get("password"),
      code: form.get("code") ?? "",
      redirect: false,
    });
    setBusy(false);
    if (result?.error === SECOND_FACTOR_NEEDED) {
      setError(needsCode ? "That code is not right (or was used already). Enter the current one." : null);
      setNeedsCode(true);
      return;
    }
    if (!result || result.error) {
      setError(
        result?.error === SIGN_IN_THROTTLED
          ? "Too many failed sign-ins. Wait a little and try again; after repeated failures, sign-in stays locked for a while."
          : "That e-mail and password do not match a staff account.",
      );
      return;
    }
    router.push("/dashboard");
    router.refresh();
  }

  return (
    <form onSubmit={onSubmit} className="mt-6 space-y-4" noValidate>
      <InputField label="E-mail" id="email" name="email" type="email" autoComplete="username" required autoFocus />
      <InputField
        label="Password"
        id="password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
      />
      {needsCode && (
        <InputField
          label="Code from your authenticator app"
          hint="Six digits, or one of your recovery codes."
          id="code"
          name="code"
          inputMode="text"
          autoComplete="one-time-code"
          required
          autoFocus
        />
      )}
      {error && (
        <p className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className={`${buttonClass} w-full`} disabled={busy}>
        {busy ? "Signing in…" : needsCode ? "Verify and sign in" : "Sign in"}
      </button>
    </form>
  );
}
