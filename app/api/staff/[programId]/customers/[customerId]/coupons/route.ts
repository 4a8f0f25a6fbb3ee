import { staffWrite } from "@/lib/staff/http";
import { assignCouponToCustomer, CouponForm } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "customers.write",
  body: CouponForm,
  status: 201,
  run: (req, tx) => assignCouponToCustomer(tx, req.staff, req.params.customerId!, req.body),
});
