import { apiRead } from "@/lib/api/route-factories";
import { readClock } from "@/lib/domain/program-clock";

/** The program's clock: `{ now, mode }`. 200. */
export const GET = apiRead(async (req, db) => ({ status: 200, json: await readClock(db.prisma, req.programId) }));
