import { staffWrite } from "@/lib/staff/http";
import { CouponPoolForm } from "@/lib/staff/forms/coupons";
import { createCouponPoolAsStaff } from "@/lib/staff/operations/catalogue";

/** Creates a coupon pool; 201. */
export const POST = staffWrite(createCouponPoolAsStaff, {
  body: CouponPoolForm,
  status: 201,
  args: (req) => [req.body],
});
