import { staffWrite } from "@/lib/staff/http";
import { revokeApiKeyAsStaff } from "@/lib/staff/operations";

export const DELETE = staffWrite({
  permission: "apikeys.manage",
  run: (req, tx) => revokeApiKeyAsStaff(tx, req.staff, req.params.keyId!),
});
