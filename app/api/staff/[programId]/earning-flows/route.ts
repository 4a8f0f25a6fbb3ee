import { staffWrite } from "@/lib/staff/http";
import { EarningFlowForm } from "@/lib/staff/forms";
import { createEarningFlowAsStaff } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "program.manage",
  body: EarningFlowForm,
  status: 201,
  run: (req, tx) => createEarningFlowAsStaff(tx, req.staff, req.body),
});
