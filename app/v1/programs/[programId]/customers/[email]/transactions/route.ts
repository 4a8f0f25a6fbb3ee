import { apiRead, parseWith } from "@/lib/api/handler";
import { customerOf, queryOf } from "@/lib/api/customer-routes";
import { PageQuery } from "@/lib/api/schemas/common";
import { listTransactionsJson } from "@/lib/domain/points";

/** Points history: the customer's ledger, newest first, cursor-paginated. */
export const GET = apiRead(async (req, db) => {
  const query = parseWith(PageQuery)(queryOf(req));
  const customerId = await customerOf(req, db);
  return { status: 200, rawJson: await listTransactionsJson(db, customerId, query.limit, query.cursor) };
});
