import { customerRead } from "@/lib/api/route-factories";
import { issueCustomerToken } from "@/lib/domain/customer-tokens";

/** Get a customer token: for a front-end widget to call the /me routes as this customer for one hour. 200. */
export const GET = customerRead(async (req, db) => ({
  status: 200,
  json: await issueCustomerToken(db, req.programId, req.customerId),
}));
