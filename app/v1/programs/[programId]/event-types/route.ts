import { apiRead } from "@/lib/api/route-factories";
import { listEventTypes } from "@/lib/domain/campaigns/store";

/** The program's declared event types, by name. 200. */
export const GET = apiRead(async (req, db) => ({
  status: 200,
  json: { data: await listEventTypes(db.prisma, req.programId) },
}));
