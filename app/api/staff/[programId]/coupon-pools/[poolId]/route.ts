import { staffWrite } from "@/lib/staff/http";
import { CouponPoolUpdate } from "@/lib/staff/forms/coupons";
import { updateCouponPoolAsStaff } from "@/lib/staff/operations/catalogue";

/** Renames a coupon pool, changes its validity or switches it off or on; 200 with the pool. */
export const PATCH = staffWrite(updateCouponPoolAsStaff, {
  body: CouponPoolUpdate,
  args: (req) => [req.params.poolId!, req.body, req.version],
});
