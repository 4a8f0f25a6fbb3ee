import { staffWrite } from "@/lib/staff/http";
import { EarningFlowEdit } from "@/lib/staff/forms/earning-flows";
import { updateEarningFlowAsStaff } from "@/lib/staff/operations/earning-flows";

/** Redefines an earning flow (everything but its key); 200 with the flow. */
export const PATCH = staffWrite(updateEarningFlowAsStaff, {
  body: EarningFlowEdit,
  args: (req) => [req.params.flowId!, req.body, req.version],
});
