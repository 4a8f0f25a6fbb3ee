import { apiRead } from "@/lib/api/route-factories";
import { dataEnvelope } from "@/lib/api/json-compose";
import { listTiersJson } from "@/lib/domain/tiers";

/** The program's tiers, lowest requiredPoints first. 200. */
export const GET = apiRead(async (req, db) => ({
  status: 200,
  rawJson: dataEnvelope(await listTiersJson(db.raw, req.programId)),
}));
