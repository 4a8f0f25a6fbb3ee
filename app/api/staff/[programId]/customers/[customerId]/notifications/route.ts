import { staffWrite } from "@/lib/staff/http";
import { notifyCustomer, NotificationForm } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "customers.write",
  body: NotificationForm,
  status: 202,
  run: (req, tx) => notifyCustomer(tx, req.staff, req.params.customerId!, req.body),
});
