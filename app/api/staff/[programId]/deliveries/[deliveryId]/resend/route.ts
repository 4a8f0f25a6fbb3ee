import { staffWrite } from "@/lib/staff/http";
import { resendDeliveryAsStaff } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "program.manage",
  run: (req, tx) => resendDeliveryAsStaff(tx, req.staff, req.params.deliveryId!),
});
