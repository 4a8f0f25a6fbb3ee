import { apiRead } from "@/lib/api/handler";
import { customerOf } from "@/lib/api/customer-routes";
import { issueCustomerToken } from "@/lib/domain/customer-tokens";

/** Get a customer token: for a front-end widget to call the /me routes as this customer for one hour. */
export const GET = apiRead(async (req, db) => {
  const customerId = await customerOf(req, db);
  return { status: 200, json: await issueCustomerToken(db, req.programId, customerId) };
});
