import { apiWrite } from "@/lib/api/handler";
import { customerOf } from "@/lib/api/customer-routes";
import { CouponRequest } from "@/lib/api/schemas/coupons";
import { assignCoupon } from "@/lib/domain/coupons";

/** Assign a coupon: the next free code of the pool, never given to two customers. 201. */
export const POST = apiWrite({
  body: CouponRequest,
  run: async (req, tx) => {
    const customerId = await customerOf(req, tx);
    const coupon = await assignCoupon(tx, { programId: req.programId, customerId, couponPoolId: req.body.couponPoolId });
    return { status: 201, json: { coupon } };
  },
});
