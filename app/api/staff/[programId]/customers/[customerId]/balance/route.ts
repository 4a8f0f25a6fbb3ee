import { staffWrite } from "@/lib/staff/http";
import { BalanceAdjustment } from "@/lib/staff/forms";
import { adjustBalance } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "balance.adjust",
  body: BalanceAdjustment,
  run: (req, tx) => adjustBalance(tx, req.staff, req.params.customerId!, req.body),
});
