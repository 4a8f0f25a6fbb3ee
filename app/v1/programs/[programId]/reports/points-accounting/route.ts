import { apiRead } from "@/lib/api/route-factories";
import { PointsAccountingQuery } from "@/lib/api/schemas/reports";
import { pointsAccounting } from "@/lib/domain/accounting";

/** The points accounting of the program's days `from`..`to` (lib/domain/accounting.ts). 200. */
export const GET = apiRead({
  query: PointsAccountingQuery,
  run: async (req, db) => ({
    status: 200,
    json: await pointsAccounting(db.prisma, req.programId, req.query.from, req.query.to),
  }),
});
