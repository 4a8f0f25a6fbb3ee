"use client";

import { signOut } from "next-auth/react";
import { secondaryButtonClass } from "@/components/ui";

export function SignOutButton() {
  return (
    <button type="button" className={secondaryButtonClass} onClick={() => signOut({ callbackUrl: "/signin" })}>
      Sign out
    </button>
  );
}
