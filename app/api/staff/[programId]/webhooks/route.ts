import { staffWrite } from "@/lib/staff/http";
import { WebhookForm } from "@/lib/staff/forms/webhooks";
import { createWebhookAsStaff } from "@/lib/staff/operations/webhooks";

/** Creates a webhook; 201 with its signing secret, shown this once. */
export const POST = staffWrite(createWebhookAsStaff, { body: WebhookForm, status: 201, args: (req) => [req.body] });
