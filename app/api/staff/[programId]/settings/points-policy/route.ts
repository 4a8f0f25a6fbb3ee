import { staffWrite } from "@/lib/staff/http";
import { PointsPolicyForm } from "@/lib/staff/forms/program";
import { updatePointsPolicyAsStaff } from "@/lib/staff/operations/points-policy";

/** Saves the program's pending-points and expiry settings; 200 with them. */
export const PATCH = staffWrite(updatePointsPolicyAsStaff, {
  body: PointsPolicyForm,
  args: (req) => [req.body, req.version],
});
