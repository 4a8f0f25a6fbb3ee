import { apiRead } from "@/lib/api/handler";
import { listActiveRewardsJson } from "@/lib/domain/rewards";

/** The program's active rewards, cheapest first. */
export const GET = apiRead(async (req, db) => ({ status: 200, rawJson: `{"data":${await listActiveRewardsJson(db, req.programId)}}` }));
