import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "assignCoupon",
  summary: "Assign a coupon",
  description: "Gives the customer the next free code of the pool; a code never goes to two customers.",
  tag: "Coupons",
  parameters: [programId, email, idempotencyKey],
  body: { schema: "CouponRequest", required: true },
  success: { status: 201, description: "Assigned.", schema: "CouponResult" },
  errors: [...CUSTOMER_ERRORS, "coupon_pool_not_found", ...WRITE_ERRORS, "coupon_pool_empty", "coupon_pool_inactive"],
};
