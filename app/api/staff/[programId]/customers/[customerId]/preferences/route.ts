import { staffWrite } from "@/lib/staff/http";
import { PreferencesForm } from "@/lib/staff/forms/customers";
import { updatePreferences } from "@/lib/staff/operations/customers";

/** PATCH changes the customer's notification flags and language (200 with all six). */
export const PATCH = staffWrite(updatePreferences, {
  body: PreferencesForm,
  args: (req) => [req.params.customerId!, req.body, req.version],
});
