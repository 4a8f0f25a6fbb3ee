import { customerReadNamed } from "@/lib/api/route-factories";
import { TokenAliasQuery } from "@/lib/api/schemas/tokens";
import { issueCustomerToken } from "@/lib/domain/customer-tokens";

/** JeriCommerce alias of Get a customer token: the customer by `?email=`, answering `{ accessToken }`. 200. */
export const GET = customerReadNamed((query) => query.email, {
  query: TokenAliasQuery,
  run: async (req, db) => {
    const { token } = await issueCustomerToken(db.prisma, req.programId, req.customerId, req.query.expires_in);
    return { status: 200, json: { accessToken: token } };
  },
});
