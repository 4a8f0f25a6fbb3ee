"use client";

import { useStaffForm } from "@/lib/staff/client";
import { PreferencesForm } from "@/lib/staff/forms/customers";
import { staffApi } from "@/lib/staff/urls";
import { Card, FormError, InputField, buttonClass, checkboxClass } from "@/components/ui";
import { NOTIFICATION_FLAGS } from "./loyalty-data-card";
import { customerQueries, type CustomerData } from "./profile";

/**
 * Support changes the customer's notification switches and language when the customer asks (by phone, by mail).
 * The fields keep the saved values after a save; a refusal keeps what was changed.
 */
export function PreferencesFormCard({
  programId,
  customerId,
  customer,
  version,
}: {
  programId: string;
  customerId: string;
  customer: CustomerData;
  /** The customer's version the form is made from (a stale save is refused and offers to reload). */
  version: string;
}) {
  const save = useStaffForm({
    schema: PreferencesForm,
    method: "PATCH",
    url: staffApi.preferences(programId, customerId),
    success: "Preferences saved",
    invalidate: customerQueries(customerId),
    clear: "never",
    version,
    read: (f) => ({
      language: f.optionalText("language"),
      ...Object.fromEntries(NOTIFICATION_FLAGS.map(([flag]) => [flag, f.checked(flag)])),
    }),
  });
  return (
    <Card title="Notification preferences">
      <form {...save.form} aria-label="Notification preferences" className="space-y-3" noValidate>
        <fieldset className="space-y-1 text-sm">
          <legend className="sr-only">Notifications the customer receives</legend>
          {NOTIFICATION_FLAGS.map(([flag, label]) => (
            <label key={flag} className="flex items-center justify-between gap-2">
              <span>{label}</span>
              <input type="checkbox" name={flag} defaultChecked={customer[flag]} className={checkboxClass} />
            </label>
          ))}
        </fieldset>
        <InputField
          label="Language"
          hint="A language tag: en, es, pt-BR. Empty: the program's default."
          error={save.errors.language}
          id="pref-language"
          name="language"
          defaultValue={customer.language ?? ""}
          aria-invalid={!!save.errors.language}
          autoComplete="off"
          className="max-w-32"
        />
        <FormError error={save.errors.form} />
        <button type="submit" className={buttonClass} disabled={save.pending}>
          {save.pending ? "Saving…" : "Save preferences"}
        </button>
      </form>
    </Card>
  );
}
