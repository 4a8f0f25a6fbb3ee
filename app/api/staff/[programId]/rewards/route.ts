import { staffWrite } from "@/lib/staff/http";
import { RewardForm } from "@/lib/staff/forms";
import { createRewardAsStaff } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "program.manage",
  body: RewardForm,
  status: 201,
  run: (req, tx) => createRewardAsStaff(tx, req.staff, req.body),
});
