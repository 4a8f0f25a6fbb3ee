import { staffWrite } from "@/lib/staff/http";
import { WebhookForm } from "@/lib/staff/forms";
import { createWebhookAsStaff } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "program.manage",
  body: WebhookForm,
  status: 201,
  run: (req, tx) => createWebhookAsStaff(tx, req.staff, req.body),
});
