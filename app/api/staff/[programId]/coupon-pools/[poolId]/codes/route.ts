import { staffWrite } from "@/lib/staff/http";
import { CouponImportChunk } from "@/lib/staff/forms";
import { importCouponsAsStaff } from "@/lib/staff/operations";

/** One chunk (at most MAX_CODES_PER_CHUNK codes) of a CSV import; the browser sends a file chunk by chunk. */
export const POST = staffWrite({
  permission: "program.manage",
  body: CouponImportChunk,
  run: (req, tx) => importCouponsAsStaff(tx, req.staff, req.params.poolId!, req.body),
});
