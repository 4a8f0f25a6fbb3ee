import { customerRead } from "@/lib/api/route-factories";
import { TokenQuery } from "@/lib/api/schemas/tokens";
import { issueCustomerToken } from "@/lib/domain/customer-tokens";

/** Get a customer token: for a front-end widget to call the /me routes as this customer (`expires_in`, 1 h). 200. */
export const GET = customerRead({
  query: TokenQuery,
  run: async (req, db) => ({
    status: 200,
    json: await issueCustomerToken(db.prisma, req.programId, req.customerId, req.query.expires_in),
  }),
});
