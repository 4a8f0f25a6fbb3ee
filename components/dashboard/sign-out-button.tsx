"use client";

import { signOut } from "next-auth/react";
import { secondaryButtonClass } from "@/components/ui";

/** Signs the staff member out and back to the sign-in page (the sidebar and the no-program page). */
export function SignOutButton({ className = secondaryButtonClass }: { className?: string }) {
  return (
    <button type="button" className={className} onClick={() => signOut({ callbackUrl: "/signin" })}>
      Sign out
    </button>
  );
}
