import { staffWrite } from "@/lib/staff/http";
import { NotificationForm } from "@/lib/staff/forms";
import { notifyCustomer } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "notifications.send",
  body: NotificationForm,
  status: 202,
  run: (req, tx) => notifyCustomer(tx, req.staff, req.params.customerId!, req.body),
});
