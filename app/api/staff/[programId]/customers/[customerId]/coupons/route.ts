import { staffWrite } from "@/lib/staff/http";
import { CouponForm } from "@/lib/staff/forms";
import { assignCouponToCustomer } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "coupons.assign",
  body: CouponForm,
  status: 201,
  run: (req, tx) => assignCouponToCustomer(tx, req.staff, req.params.customerId!, req.body),
});
