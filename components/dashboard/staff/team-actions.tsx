"use client";

import { useState } from "react";
import { useStaffWrite } from "@/lib/staff/client";
import { staffApi } from "@/lib/staff/urls";
import { Card, ShownOnce, buttonClass, dangerButtonClass, secondaryButtonClass } from "@/components/ui";
import { WriteButton } from "../write-button";
import { fullLink } from "./invite-form";

/** A member's row (owners): a password-reset link, shown once under the button. */
export function StaffResetLinkButton({
  programId,
  staffId,
  email,
}: {
  programId: string;
  staffId: string;
  email: string;
}) {
  const [link, setLink] = useState<string | null>(null);
  const reset = useStaffWrite<never, { path: string }>({
    method: "POST",
    url: staffApi.staffResetLink(programId, staffId),
    success: `Reset link for ${email} created`,
    onSuccess: (data) => setLink(fullLink(data.path)),
  });
  return (
    <div>
      <button
        type="button"
        className={`${secondaryButtonClass} whitespace-nowrap py-1`}
        disabled={reset.pending}
        aria-label={`Reset the password of ${email}`}
        onClick={() => {
          if (
            window.confirm(
              `Create a password-reset link for ${email}? It works once, for 24 hours, and signs them out.`,
            )
          )
            reset.submit();
        }}
      >
        Reset password
      </button>
      {link && <ShownOnce what={`reset link for ${email}`} value={link} testId={`reset-link-${staffId}`} />}
    </div>
  );
}

/** A member's row (owners): remove from the program; their sessions end. */
export function StaffRemoveButton({
  programId,
  staffId,
  email,
}: {
  programId: string;
  staffId: string;
  email: string;
}) {
  return (
    <WriteButton
      write={{ method: "DELETE", url: staffApi.staffMember(programId, staffId), success: `${email} removed` }}
      confirm={`Remove ${email} from this program? They are signed out at once; their account stays for other programs.`}
      className={`${dangerButtonClass} whitespace-nowrap py-1`}
      label={`Remove ${email}`}
    >
      Remove
    </WriteButton>
  );
}

/** The owners' "require a second factor" setting card. */
export function SecondFactorSetting({
  programId,
  required,
  without,
  ownerHasFactor,
}: {
  programId: string;
  required: boolean;
  /** Active members with no second factor yet (they are sent to set one up when required). */
  without: number;
  ownerHasFactor: boolean;
}) {
  const write = useStaffWrite<never, { required: boolean }>({
    method: "PUT",
    url: staffApi.staffSecondFactor(programId),
    success: (data) => (data.required ? "A second factor is now required" : "A second factor is now optional"),
  });
  return (
    <Card title="Second factor">
      <p className="text-sm text-slate-700">
        {required
          ? "Required: every member needs an authenticator app (TOTP) to open this program; a member without one is sent to set it up after signing in."
          : "Optional: members may set up an authenticator app (TOTP) on their account page."}{" "}
        {without > 0
          ? `${without} active member${without === 1 ? " has" : "s have"} none yet.`
          : "Every active member has one."}
      </p>
      {!required && !ownerHasFactor ? (
        <p className="mt-2 text-sm text-slate-600">
          Set up your own second factor first, on{" "}
          <a className="text-indigo-700 underline" href="/account">
            your account page
          </a>
          .
        </p>
      ) : (
        <button
          type="button"
          className={`${required ? secondaryButtonClass : buttonClass} mt-3`}
          disabled={write.pending}
          onClick={() => write.submit({ required: !required } as never)}
        >
          {required ? "Make it optional" : "Require a second factor"}
        </button>
      )}
    </Card>
  );
}
