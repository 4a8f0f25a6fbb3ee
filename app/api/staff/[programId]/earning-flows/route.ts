import { staffWrite } from "@/lib/staff/http";
import { EarningFlowForm } from "@/lib/staff/forms/earning-flows";
import { createEarningFlowAsStaff } from "@/lib/staff/operations/catalogue";

/** Creates an earning flow; 201. */
export const POST = staffWrite(createEarningFlowAsStaff, {
  body: EarningFlowForm,
  status: 201,
  args: (req) => [req.body],
});
