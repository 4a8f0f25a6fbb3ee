import { staffWrite } from "@/lib/staff/http";
import { RewardUpdate } from "@/lib/staff/forms";
import { updateRewardAsStaff } from "@/lib/staff/operations";

export const PATCH = staffWrite({
  permission: "program.manage",
  body: RewardUpdate,
  run: (req, tx) => updateRewardAsStaff(tx, req.staff, req.params.rewardId!, req.body),
});
