"use client";

import { useStaffWrite } from "@/lib/staff/client";
import { staffApi } from "@/lib/staff/urls";
import { Card, buttonClass, secondaryButtonClass } from "@/components/ui";

/** The owners' "require a second factor" setting card of the Staff page. */
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
