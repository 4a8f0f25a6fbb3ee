import { customerWrite } from "@/lib/api/route-factories";
import { ReferralRequest } from "@/lib/api/schemas/customers";
import { referralOfCustomerJson } from "@/lib/domain/referrals";

/** Record who referred the customer (before their first earn; the same code again changes nothing). 200 Customer. */
export const POST = customerWrite({
  body: ReferralRequest,
  run: async (req, tx) => ({
    status: 200,
    rawJson: await referralOfCustomerJson(tx, req.programId, req.customerId, req.body.code),
  }),
});
