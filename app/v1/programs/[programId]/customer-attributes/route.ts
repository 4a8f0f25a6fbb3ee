import { apiRead } from "@/lib/api/route-factories";
import { listCustomerAttributes } from "@/lib/domain/customer-attributes";

/** The program's declared customer attributes, by name. 200. */
export const GET = apiRead(async (req, db) => ({
  status: 200,
  json: { data: await listCustomerAttributes(db.prisma, req.programId) },
}));
