import { staffWrite } from "@/lib/staff/http";
import { ReversalForm } from "@/lib/staff/forms/reversals";
import { reverseForCustomer } from "@/lib/staff/operations/reversals";

/** Reverses (part of) a ledger entry of the customer, with a reason; 200 with the outcome and the projected tier. */
export const POST = staffWrite(reverseForCustomer, {
  body: ReversalForm,
  args: (req) => [req.params.customerId!, req.params.transactionId!, req.body],
});
