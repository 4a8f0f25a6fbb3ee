import { staffWrite } from "@/lib/staff/http";
import { WebhookUpdate } from "@/lib/staff/forms";
import { setWebhookActiveAsStaff } from "@/lib/staff/operations";

export const PATCH = staffWrite({
  permission: "program.manage",
  body: WebhookUpdate,
  run: (req, tx) => setWebhookActiveAsStaff(tx, req.staff, req.params.webhookId!, req.body),
});
