import { staffWrite } from "@/lib/staff/http";
import { WebhookUpdate } from "@/lib/staff/forms/webhooks";
import { setWebhookActiveAsStaff } from "@/lib/staff/operations/webhooks";

/** Enables or disables a webhook; 200. */
export const PATCH = staffWrite(setWebhookActiveAsStaff, {
  body: WebhookUpdate,
  args: (req) => [req.params.webhookId!, req.body, req.version],
});
