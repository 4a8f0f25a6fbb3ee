"use client";

import { useStaffForm } from "@/lib/staff/client";
import { UserDataEdit } from "@/lib/staff/forms/customers";
import { staffApi } from "@/lib/staff/urls";
import { Card, FormError, InputField, buttonClass } from "@/components/ui";
import { customerQueries, type CustomerData } from "./profile";

const USER_FIELDS = [
  ["firstName", "First name", "given-name"],
  ["lastName", "Last name", "family-name"],
  ["phone", "Phone", "tel"],
  ["externalCustomerId", "External customer id", "off"],
  ["birthdate", "Birthdate (YYYY-MM-DD)", "off"],
] as const;

/** A declared customer attribute (API.md "Customer attributes"), as the page loads it. */
export interface DeclaredAttribute {
  name: string;
  type: "number" | "string" | "boolean" | "datetime";
}

const attributeField = (name: string) => `ca.${name}`;

/** The form's value of a declared attribute: null when empty (removes it), else typed (junk is the schema's to refuse). */
function attributeValue(type: DeclaredAttribute["type"], text: string | null): unknown {
  if (text === null) return null;
  if (type === "number") return Number(text);
  if (type === "boolean") return text === "true";
  return text;
}

const shownValue = (v: unknown) => (v === undefined || v === null ? "" : String(v));

/** The customer page's "User data" card: a read view for roles that may not edit customers, else the form. */
export function UserDataCard(props: {
  programId: string;
  customerId: string;
  email: string;
  userData: CustomerData["userData"];
  attributes: DeclaredAttribute[];
  values: Record<string, unknown>;
  canEdit: boolean;
  /** The customer's version the form is made from (a stale save is refused and offers to reload). */
  version: string;
}) {
  if (props.canEdit) return <UserDataForm {...props} />;
  const { email, userData, attributes, values } = props;
  return (
    <Card title="User data">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm" aria-label="User data">
        <dt className="text-slate-600">E-mail</dt>
        <dd className="break-all">{email}</dd>
        {USER_FIELDS.map(([name, label]) => (
          <div key={name} className="contents">
            <dt className="text-slate-600">{label.replace(" (YYYY-MM-DD)", "")}</dt>
            <dd className="break-all">{userData[name] || "—"}</dd>
          </div>
        ))}
        <dt className="text-slate-600">E-mail verified</dt>
        <dd>{userData.emailVerified ? "yes" : "no"}</dd>
        {attributes.map(({ name }) => (
          <div key={name} className="contents">
            <dt className="text-slate-600">{name}</dt>
            <dd className="break-all">{shownValue(values[name]) || "—"}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

function UserDataForm({
  programId,
  customerId,
  email,
  userData,
  attributes,
  values,
  version,
}: {
  programId: string;
  customerId: string;
  email: string;
  userData: CustomerData["userData"];
  attributes: DeclaredAttribute[];
  values: Record<string, unknown>;
  version: string;
}) {
  const save = useStaffForm({
    schema: UserDataEdit,
    method: "PATCH",
    url: staffApi.customer(programId, customerId),
    success: "User data saved",
    invalidate: customerQueries(customerId),
    // The fields show the saved values once the page refreshes.
    clear: "never",
    version,
    read: (f) => {
      const body: Record<string, unknown> = Object.fromEntries(
        USER_FIELDS.map(([name]) => [name, f.optionalText(name)]),
      );
      body.emailVerified = f.checked("emailVerified");
      if (attributes.length)
        body.customAttributes = Object.fromEntries(
          attributes.map(({ name, type }) => [name, attributeValue(type, f.optionalText(attributeField(name)))]),
        );
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
            aria-invalid={!!save.errors[name]}
            autoComplete={autoComplete}
          />
        ))}
        {attributes.map(({ name, type }) =>
          type === "boolean" ? (
            <label key={name} className="grid gap-1 text-sm text-slate-800">
              {name}
              <select
                name={attributeField(name)}
                defaultValue={shownValue(values[name])}
                className="rounded border border-slate-300 px-2 py-1.5"
              >
                <option value="">—</option>
                <option value="true">yes</option>
                <option value="false">no</option>
              </select>
            </label>
          ) : (
            <InputField
              key={name}
              label={type === "datetime" ? `${name} (ISO 8601 time)` : name}
              error={save.errors[`customAttributes.${name}`]}
              id={`ud-ca-${name}`}
              name={attributeField(name)}
              inputMode={type === "number" ? "decimal" : undefined}
              defaultValue={shownValue(values[name])}
              autoComplete="off"
            />
          ),
        )}
        <label className="flex items-center gap-2 self-end pb-2 text-sm text-slate-800">
          <input
            type="checkbox"
            name="emailVerified"
            defaultChecked={userData.emailVerified}
            className="h-4 w-4 accent-indigo-600"
          />
          E-mail verified
        </label>
        <div className="space-y-2 sm:col-span-2">
          <FormError error={save.errors.form} />
          <button type="submit" className={buttonClass} disabled={save.pending}>
            {save.pending ? "Saving…" : "Save user data"}
          </button>
        </div>
      </form>
    </Card>
  );
}
