import { staffWrite } from "@/lib/staff/http";
import { RewardForm } from "@/lib/staff/forms/rewards";
import { createRewardAsStaff } from "@/lib/staff/operations/catalogue";

/** Creates a reward; 201. */
export const POST = staffWrite(createRewardAsStaff, { body: RewardForm, status: 201, args: (req) => [req.body] });
