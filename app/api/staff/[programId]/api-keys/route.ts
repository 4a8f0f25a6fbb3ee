import { staffWrite } from "@/lib/staff/http";
import { ApiKeyForm, createApiKeyAsStaff } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "apikeys.manage",
  body: ApiKeyForm,
  status: 201,
  run: (req, tx) => createApiKeyAsStaff(tx, req.staff, req.body),
});
