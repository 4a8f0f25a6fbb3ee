import { meRead } from "@/lib/api/customer-auth";
import { parseWith } from "@/lib/api/handler";
import { queryOf } from "@/lib/api/customer-routes";
import { PageQuery } from "@/lib/api/schemas/common";
import { listTransactionsJson } from "@/lib/domain/points";

/** The token's customer's points history, newest first. */
export const GET = meRead(async (req, db) => {
  const query = parseWith(PageQuery)(queryOf(req));
  return { status: 200, rawJson: await listTransactionsJson(db, req.caller.customerId!, query.limit, query.cursor) };
});
