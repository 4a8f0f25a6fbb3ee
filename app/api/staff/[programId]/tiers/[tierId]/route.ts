import { staffWrite } from "@/lib/staff/http";
import { TierUpdate } from "@/lib/staff/forms/tiers";
import { removeTierAsStaff, updateTierAsStaff } from "@/lib/staff/operations/tiers";

/** Changes a tier (a new threshold re-evaluates the program's customers); 200 with the tier. */
export const PATCH = staffWrite(updateTierAsStaff, {
  body: TierUpdate,
  args: (req) => [req.params.tierId!, req.body, req.version],
});

/** Removes a tier after moving its holders to the best tier they still reach; 200. */
export const DELETE = staffWrite(removeTierAsStaff, { args: (req) => [req.params.tierId!] });
