"use client";

import { useStaffForm } from "@/lib/staff/client";
import { UserDataEdit } from "@/lib/staff/forms";
import { staffApi } from "@/lib/staff/urls";
import { Card, InputField, buttonClass } from "@/components/ui";
import { customerQueries, type CustomerData } from "./profile";

const USER_FIELDS = [
  ["firstName", "First name", "given-name"],
  ["lastName", "Last name", "family-name"],
  ["phone", "Phone", "tel"],
  ["externalCustomerId", "External customer id", "off"],
  ["birthdate", "Birthdate (YYYY-MM-DD)", "off"],
] as const;

/** The customer page's "User data" card: read-only unless the role may edit customers. */
export function UserDataForm({
  programId,
  customerId,
  email,
  userData,
  canEdit,
}: {
  programId: string;
  customerId: string;
  email: string;
  userData: CustomerData["userData"];
  canEdit: boolean;
}) {
  const save = useStaffForm({
    schema: UserDataEdit,
    method: "PATCH",
    url: staffApi.customer(programId, customerId),
    success: "User data saved",
    invalidate: customerQueries(customerId),
    // The fields show the saved values once the page refreshes.
    clear: "never",
    read: (f) => {
      const body: Record<string, unknown> = Object.fromEntries(
        USER_FIELDS.map(([name]) => [name, f.optionalText(name)]),
      );
      body.emailVerified = f.checked("emailVerified");
      // Sent only when changed: a new e-mail renames the customer.
      const newEmail = f.optionalText("email");
      if (newEmail !== email) body.email = newEmail ?? "";
      return body;
    },
  });
  return (
    <Card title="User data">
      <form {...save.form} className="grid gap-3 sm:grid-cols-2" aria-label="User data" noValidate>
        <div className="sm:col-span-2">
          <InputField
            label="E-mail"
            error={save.errors.email}
            hint="Changing it renames the customer for the API too."
            id="ud-email"
            name="email"
            type="email"
            defaultValue={email}
            disabled={!canEdit}
            aria-invalid={!!save.errors.email}
            autoComplete="off"
          />
        </div>
        {USER_FIELDS.map(([name, label, autoComplete]) => (
          <InputField
            key={name}
            label={label}
            error={save.errors[name]}
            id={`ud-${name}`}
            name={name}
            defaultValue={userData[name] ?? ""}
            disabled={!canEdit}
            aria-invalid={!!save.errors[name]}
            autoComplete={autoComplete}
          />
        ))}
        <label className="flex items-center gap-2 self-end pb-2 text-sm text-slate-800">
          <input
            type="checkbox"
            name="emailVerified"
            defaultChecked={userData.emailVerified}
            disabled={!canEdit}
            className="h-4 w-4 accent-indigo-600"
          />
          E-mail verified
        </label>
        {canEdit && (
          <div className="sm:col-span-2">
            <button type="submit" className={buttonClass} disabled={save.pending}>
              {save.pending ? "Saving…" : "Save user data"}
            </button>
          </div>
        )}
      </form>
    </Card>
  );
}
