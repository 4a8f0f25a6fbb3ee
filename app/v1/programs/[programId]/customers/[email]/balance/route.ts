import { customerRead } from "@/lib/api/route-factories";
import { explainBalance } from "@/lib/domain/balance-explained";

/** The customer's balance explained: open lots, points expiring, tier points counted and not. 200. */
export const GET = customerRead(async (req, db) => ({
  status: 200,
  json: await explainBalance(db.prisma, req.programId, req.customerId),
}));
