import { staffWrite } from "@/lib/staff/http";
import { redeemForCustomer, RedeemForm } from "@/lib/staff/operations";

export const POST = staffWrite({
  permission: "customers.write",
  body: RedeemForm,
  status: 201,
  run: (req, tx) => redeemForCustomer(tx, req.staff, req.params.customerId!, req.body),
});
