import { staffWrite } from "@/lib/staff/http";
import { resendDeliveryAsStaff } from "@/lib/staff/operations/webhooks";

/** Queues a webhook or push delivery again; 200 with its status (pending). */
export const POST = staffWrite(resendDeliveryAsStaff, { args: (req) => [req.params.deliveryId!] });
