import { customerRead } from "@/lib/api/route-factories";
import { PageQuery } from "@/lib/api/schemas/common";
import { listTransactionsJson } from "@/lib/domain/points";

/** Points history: the customer's ledger, newest first, cursor-paginated. 200. */
export const GET = customerRead({
  query: PageQuery,
  run: async (req, db) => ({
    status: 200,
    rawJson: await listTransactionsJson(db.raw, req.customerId, req.query.limit, req.query.cursor),
  }),
});
