import { apiRead } from "@/lib/api/route-factories";
import { dataEnvelope } from "@/lib/api/json-compose";
import { listActiveRewardsJson } from "@/lib/domain/rewards";

/** The program's active rewards, cheapest first. 200. */
export const GET = apiRead(async (req, db) => ({
  status: 200,
  rawJson: dataEnvelope(await listActiveRewardsJson(db.raw, req.programId)),
}));
