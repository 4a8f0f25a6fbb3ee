import { staffWrite } from "@/lib/staff/http";
import { RedeemForm } from "@/lib/staff/forms/rewards";
import { redeemForCustomer } from "@/lib/staff/operations/customers";

/** Redeems a reward for the customer; 201 with the redemption. */
export const POST = staffWrite(redeemForCustomer, {
  body: RedeemForm,
  status: 201,
  args: (req) => [req.params.customerId!, req.body],
});
