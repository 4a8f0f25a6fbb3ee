import { staffWrite } from "@/lib/staff/http";
import { RewardUpdate } from "@/lib/staff/forms/rewards";
import { updateRewardAsStaff } from "@/lib/staff/operations/catalogue";

/** Changes a reward's cost, stock or active flag; 200 with the reward. */
export const PATCH = staffWrite(updateRewardAsStaff, {
  body: RewardUpdate,
  args: (req) => [req.params.rewardId!, req.body, req.version],
});
