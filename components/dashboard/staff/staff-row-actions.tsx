"use client";

import { useStaffForm } from "@/lib/staff/client";
import { StaffRoleForm as StaffRoleSchema } from "@/lib/staff/forms/staff";
import { staffApi } from "@/lib/staff/urls";
import { dangerButtonClass, inputClass, secondaryButtonClass } from "@/components/ui";
import { WriteButton } from "../write-button";
import { RoleOptions, type StaffRole } from "./role-options";

/** A staff member's row on the staff page (owners): change the role, disable or re-enable the account. */

export function StaffRoleForm({
  programId,
  staffId,
  email,
  role,
  version,
}: {
  programId: string;
  staffId: string;
  email: string;
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
    <form {...change.form} aria-label={`Change the role of ${email}`} className="flex items-center gap-2">
      <label htmlFor={id} className="sr-only">
        Role of {email}
      </label>
      <select id={id} name="role" defaultValue={role} key={role} className={`${inputClass} min-w-32 py-1`}>
        <RoleOptions />
      </select>
      <button
        type="submit"
        className={`${secondaryButtonClass} py-1`}
        disabled={change.pending}
        aria-label={`Save role of ${email}`}
      >
        Save
      </button>
    </form>
  );
}

export function StaffDisableButton({
  programId,
  staffId,
  email,
  disabled,
  version,
}: {
  programId: string;
  staffId: string;
  email: string;
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
      className={`${disabled ? secondaryButtonClass : dangerButtonClass} whitespace-nowrap py-1`}
      label={`${disabled ? "Re-enable" : "Disable"} ${email}`}
    >
      {disabled ? "Re-enable" : "Disable"}
    </WriteButton>
  );
}

/** Ends a member's sign-in lock (owners), shown while the account is locked. */
export function StaffUnlockButton({
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
      write={{ method: "DELETE", url: staffApi.staffLock(programId, staffId), success: `${email} unlocked` }}
      confirm={null}
      className={`${secondaryButtonClass} whitespace-nowrap py-1`}
      label={`Unlock ${email}`}
    >
      Unlock
    </WriteButton>
  );
}
