import { staffWrite } from "@/lib/staff/http";
import { RedeemForm } from "@/lib/staff/forms";
import { redeemForCustomer } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "rewards.redeem",
  body: RedeemForm,
  status: 201,
  run: (req, tx) => redeemForCustomer(tx, req.staff, req.params.customerId!, req.body),
});
