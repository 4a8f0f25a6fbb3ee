import { staffWrite } from "@/lib/staff/http";
import { ApiKeyLimits } from "@/lib/staff/forms/api-keys";
import { revokeApiKeyAsStaff, setApiKeyLimitsAsStaff } from "@/lib/staff/operations/api-keys";

/** Changes a key's rate and burst; 200 with the new limits. */
export const PATCH = staffWrite(setApiKeyLimitsAsStaff, {
  body: ApiKeyLimits,
  args: (req) => [req.params.keyId!, req.body, req.version],
});

/** Revokes one of the program's API keys; 200 with the revocation time. */
export const DELETE = staffWrite(revokeApiKeyAsStaff, { args: (req) => [req.params.keyId!] });
