import { staffWrite } from "@/lib/staff/http";
import { sendTestEventAsStaff } from "@/lib/staff/operations/webhooks";

/** Queues a signed `webhook.test` event for this webhook only; 202 with the delivery's id. */
export const POST = staffWrite(sendTestEventAsStaff, { status: 202, args: (req) => [req.params.webhookId!] });
