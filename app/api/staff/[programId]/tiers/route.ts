import { staffWrite } from "@/lib/staff/http";
import { createTierAsStaff, TierForm } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "program.manage",
  body: TierForm,
  status: 201,
  run: (req, tx) => createTierAsStaff(tx, req.staff, req.body),
});
