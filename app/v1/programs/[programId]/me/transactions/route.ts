import { corsPreflight } from "@/lib/api/cors";
import { meRead } from "@/lib/api/route-factories";
import { PageQuery } from "@/lib/api/schemas/common";
import { listTransactionsJson } from "@/lib/domain/points";

/** The token's customer's points history, newest first. 200. */
export const GET = meRead({
  query: PageQuery,
  run: async (req, db) => ({
    status: 200,
    rawJson: await listTransactionsJson(db.raw, req.customerId, req.query.limit, req.query.cursor),
  }),
});

/** CORS preflight for the program's allowed origins (lib/api/cors.ts). */
export const OPTIONS = corsPreflight(["GET"]);
