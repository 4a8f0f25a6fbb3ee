import { customerRead } from "@/lib/api/route-factories";
import { programNow } from "@/lib/domain/clock";
import { segmentsOfCustomer } from "@/lib/domain/segments/store";

/** The segments the customer is in now. 200. */
export const GET = customerRead(async (req, db) => ({
  status: 200,
  json: { data: await segmentsOfCustomer(db.prisma, req.programId, req.customerId, programNow(req.programId)) },
}));
