import { staffWrite } from "@/lib/staff/http";
import { WebhookRotation } from "@/lib/staff/forms/webhooks";
import { rotateWebhookSecretAsStaff } from "@/lib/staff/operations/webhooks";

/** Rotates a webhook's signing secret (the old one valid for `overlapHours`); 200 with the new secret, shown once. */
export const POST = staffWrite(rotateWebhookSecretAsStaff, {
  body: WebhookRotation,
  args: (req) => [req.params.webhookId!, req.body],
});
