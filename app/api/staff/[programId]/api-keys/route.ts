import { staffWrite } from "@/lib/staff/http";
import { ApiKeyForm } from "@/lib/staff/forms";
import { createApiKeyAsStaff } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "apikeys.manage",
  body: ApiKeyForm,
  status: 201,
  run: (req, tx) => createApiKeyAsStaff(tx, req.staff, req.body),
});
