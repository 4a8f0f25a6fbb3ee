import { staffWrite } from "@/lib/staff/http";
import { CouponPoolForm } from "@/lib/staff/forms";
import { createCouponPoolAsStaff } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "program.manage",
  body: CouponPoolForm,
  status: 201,
  run: (req, tx) => createCouponPoolAsStaff(tx, req.staff, req.body),
});
