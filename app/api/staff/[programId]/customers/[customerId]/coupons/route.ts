import { staffWrite } from "@/lib/staff/http";
import { CouponForm } from "@/lib/staff/forms/coupons";
import { assignCouponToCustomer } from "@/lib/staff/operations/customers";

/** Assigns the customer a free code of a pool; 201 with the coupon. */
export const POST = staffWrite(assignCouponToCustomer, {
  body: CouponForm,
  status: 201,
  args: (req) => [req.params.customerId!, req.body],
});
