import { customerWrite } from "@/lib/api/route-factories";
import { CouponRequest } from "@/lib/api/schemas/coupons";
import { assignCouponInOneStatement } from "@/lib/api/one-statement";
import { assignCoupon } from "@/lib/domain/coupons";

/** Assign a coupon: the next free code of the pool, never given to two customers, in one statement. 201. */
export const POST = customerWrite({
  body: CouponRequest,
  statement: (req, database, slot) =>
    assignCouponInOneStatement(
      database,
      { programId: req.programId, customerId: req.customerId, couponPoolId: req.body.couponPoolId },
      slot,
    ),
  run: async (req, tx) => {
    const coupon = await assignCoupon(tx, {
      programId: req.programId,
      customerId: req.customerId,
      couponPoolId: req.body.couponPoolId,
    });
    return { status: 201, json: { coupon } };
  },
});
