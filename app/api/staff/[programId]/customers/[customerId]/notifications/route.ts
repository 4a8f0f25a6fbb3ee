import { staffWrite } from "@/lib/staff/http";
import { NotificationForm } from "@/lib/staff/forms/notifications";
import { notifyCustomer } from "@/lib/staff/operations/customers";

/** Sends the customer a push notification; 202 (stored; the outbox worker delivers it). */
export const POST = staffWrite(notifyCustomer, {
  body: NotificationForm,
  status: 202,
  args: (req) => [req.params.customerId!, req.body],
});
