import { staffWrite } from "@/lib/staff/http";
import { revokeApiKeyAsStaff } from "@/lib/staff/operations/api-keys";

/** Revokes one of the program's API keys; 200 with the revocation time. */
export const DELETE = staffWrite(revokeApiKeyAsStaff, { args: (req) => [req.params.keyId!] });
