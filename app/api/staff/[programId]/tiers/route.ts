import { staffWrite } from "@/lib/staff/http";
import { TierForm } from "@/lib/staff/forms";
import { createTierAsStaff } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "program.manage",
  body: TierForm,
  status: 201,
  run: (req, tx) => createTierAsStaff(tx, req.staff, req.body),
});
