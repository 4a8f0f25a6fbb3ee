import { corsPreflight } from "@/lib/api/cors";
import { meRead } from "@/lib/api/route-factories";
import { explainBalance } from "@/lib/domain/balance-explained";

/** The token's customer's balance explained (as Explain a balance). 200. */
export const GET = meRead(async (req, db) => ({
  status: 200,
  json: await explainBalance(db.prisma, req.programId, req.customerId),
}));

/** CORS preflight for the program's allowed origins (lib/api/cors.ts). */
export const OPTIONS = corsPreflight(["GET"]);
