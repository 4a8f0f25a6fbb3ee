import { staffWrite } from "@/lib/staff/http";
import { BalanceAdjustment } from "@/lib/staff/forms/points";
import { adjustBalance } from "@/lib/staff/operations/customers";

/** Adds or takes points by hand, with a reason; 200 with the new balance and its ledger entry. */
export const POST = staffWrite(adjustBalance, {
  body: BalanceAdjustment,
  args: (req) => [req.params.customerId!, req.body],
});
