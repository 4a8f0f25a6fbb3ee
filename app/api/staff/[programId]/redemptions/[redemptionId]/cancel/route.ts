import { staffWrite } from "@/lib/staff/http";
import { CancelRedemptionForm } from "@/lib/staff/forms/rewards";
import { cancelRedemptionAsStaff } from "@/lib/staff/operations/redemptions";

/** Cancels a redemption of the program (points and stock back, code void); 200 with the redemption and balance. */
export const POST = staffWrite(cancelRedemptionAsStaff, {
  body: CancelRedemptionForm,
  args: (req) => [req.params.redemptionId!, req.body],
});
