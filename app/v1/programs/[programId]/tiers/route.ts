import { apiRead } from "@/lib/api/handler";
import { listTiersJson } from "@/lib/domain/tiers";

/** The program's tiers, lowest requiredPoints first. */
export const GET = apiRead(async (req, db) => ({ status: 200, rawJson: `{"data":${await listTiersJson(db, req.programId)}}` }));
