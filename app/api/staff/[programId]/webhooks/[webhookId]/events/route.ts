import { staffWrite } from "@/lib/staff/http";
import { WebhookSubscriptions } from "@/lib/staff/forms/webhooks";
import { setWebhookSubscriptionsAsStaff } from "@/lib/staff/operations/webhooks";

/** Sets the event types a webhook receives (empty: all); 200 with the stored list. */
export const PUT = staffWrite(setWebhookSubscriptionsAsStaff, {
  body: WebhookSubscriptions,
  args: (req) => [req.params.webhookId!, req.body, req.version],
});
