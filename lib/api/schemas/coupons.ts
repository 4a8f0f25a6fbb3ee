import { z } from "zod";
import { Id, Timestamp } from "./common";

/** Assigning a coupon of a pool to a customer (API.md §3). */

export const CouponRequest = z.strictObject({ couponPoolId: z.uuid() }).meta({ id: "CouponRequest" });
export const CouponResult = z
  .object({
    coupon: z.object({ code: z.string(), couponPoolId: Id, assignedAt: Timestamp, expiresAt: Timestamp.nullable() }),
  })
  .meta({ id: "CouponResult" });
