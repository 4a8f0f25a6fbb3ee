import { staffWrite } from "@/lib/staff/http";
import { CouponImportChunk } from "@/lib/staff/forms/coupons";
import { importCouponsAsStaff } from "@/lib/staff/operations/catalogue";

/** One chunk (at most MAX_CODES_PER_CHUNK codes) of a CSV import; the browser sends a file chunk by chunk. 200 with the counts. */
export const POST = staffWrite(importCouponsAsStaff, {
  body: CouponImportChunk,
  args: (req) => [req.params.poolId!, req.body],
});
