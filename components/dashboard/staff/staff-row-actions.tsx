"use client";

import { useState } from "react";
import { useStaffForm } from "@/lib/staff/client";
import { StaffRoleForm as StaffRoleSchema } from "@/lib/staff/forms/staff";
import { staffApi } from "@/lib/staff/urls";
import { ShownOnce, dangerButtonClass, inputLook, secondaryButtonClass } from "@/components/ui";
import { WriteButton } from "../write-button";
import { fullLink } from "./invite-form";
import { RoleOptions, type StaffRole } from "./role-options";

/**
 * A staff member's row on the Staff page (owners): change the role; the row's buttons (disable or re-enable,
 * unlock, reset the password, remove), each one write on the member, after a question where it ends something.
 */

/** The member a row's button acts on. */
interface Member {
  programId: string;
  staffId: string;
  email: string;
}

/** The row buttons' one look: red for what takes access away, else plain. */
const rowButton = (danger: boolean) => `${danger ? dangerButtonClass : secondaryButtonClass} whitespace-nowrap`;

export function StaffRoleForm({
  programId,
  staffId,
  email,
  role,
  version,
}: Member & {
  role: string;
  /** The membership's version: a change made from an older one is refused and offers to reload. */
  version: Date;
}) {
  const change = useStaffForm({
    schema: StaffRoleSchema,
    method: "PUT",
    url: staffApi.staffRole(programId, staffId),
    success: "Role changed",
    // The picker shows the saved role (keyed on it), so there is nothing to clear.
    clear: "never",
    version,
    read: (f) => ({ role: f.text("role") as StaffRole }),
  });
  const id = `role-${staffId}`;
  return (
    <form {...change.form} aria-label={`Change the role of ${email}`} className="flex flex-wrap items-center gap-2">
      <label htmlFor={id} className="sr-only">
        Role of {email}
      </label>
      <select id={id} name="role" defaultValue={role} key={role} className={`${inputLook} w-auto py-2`}>
        <RoleOptions />
      </select>
      <button
        type="submit"
        className={secondaryButtonClass}
        disabled={change.pending}
        aria-label={`Save role of ${email}`}
      >
        Save
      </button>
    </form>
  );
}

/** Disables the account (its sessions end at the next request), or re-enables it. */
export function StaffDisableButton({
  programId,
  staffId,
  email,
  disabled,
  version,
}: Member & {
  disabled: boolean;
  /** The membership's version (If-Match), as StaffRoleForm takes it. */
  version?: string | Date;
}) {
  return (
    <WriteButton
      write={{
        method: "PUT",
        url: staffApi.staffDisabled(programId, staffId),
        success: disabled ? `${email} re-enabled` : `${email} disabled`,
      }}
      body={{ disabled: !disabled }}
      version={version}
      confirm={disabled ? null : `Disable ${email}? They are signed out of the dashboard at their next request.`}
      className={rowButton(!disabled)}
      label={`${disabled ? "Re-enable" : "Disable"} ${email}`}
    >
      {disabled ? "Re-enable" : "Disable"}
    </WriteButton>
  );
}

/** Ends a member's sign-in lock, shown while the account is locked. */
export function StaffUnlockButton({ programId, staffId, email }: Member) {
  return (
    <WriteButton
      write={{ method: "DELETE", url: staffApi.staffLock(programId, staffId), success: `${email} unlocked` }}
      className={rowButton(false)}
      label={`Unlock ${email}`}
    >
      Unlock
    </WriteButton>
  );
}

/** A password-reset link for the member, shown once under the button. */
export function StaffResetLinkButton({ programId, staffId, email }: Member) {
  const [link, setLink] = useState<string | null>(null);
  return (
    <div>
      <WriteButton
        write={{
          method: "POST",
          url: staffApi.staffResetLink(programId, staffId),
          success: `Reset link for ${email} created`,
        }}
        onSuccess={(data) => setLink(fullLink((data as { path: string }).path))}
        confirm={`Create a password-reset link for ${email}? It works once, for 24 hours, and signs them out.`}
        className={rowButton(false)}
        label={`Reset the password of ${email}`}
      >
        Reset password
      </WriteButton>
      {link && <ShownOnce what={`reset link for ${email}`} value={link} testId={`reset-link-${staffId}`} />}
    </div>
  );
}

/** Removes the member from the program; their sessions end. */
export function StaffRemoveButton({ programId, staffId, email }: Member) {
  return (
    <WriteButton
      write={{ method: "DELETE", url: staffApi.staffMember(programId, staffId), success: `${email} removed` }}
      confirm={`Remove ${email} from this program? They are signed out at once; their account stays for other programs.`}
      className={rowButton(true)}
      label={`Remove ${email}`}
    >
      Remove
    </WriteButton>
  );
}
