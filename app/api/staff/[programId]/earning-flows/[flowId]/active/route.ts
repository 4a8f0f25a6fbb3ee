import { staffWrite } from "@/lib/staff/http";
import { EarningFlowActive } from "@/lib/staff/forms/earning-flows";
import { setEarningFlowActiveAsStaff } from "@/lib/staff/operations/earning-flows";

/** Switches an earning flow off (its runs are refused) or on; 200. */
export const PUT = staffWrite(setEarningFlowActiveAsStaff, {
  body: EarningFlowActive,
  args: (req) => [req.params.flowId!, req.body, req.version],
});
