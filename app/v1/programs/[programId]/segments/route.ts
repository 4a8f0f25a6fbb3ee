import { apiRead, apiWrite } from "@/lib/api/route-factories";
import { SegmentRequest } from "@/lib/api/schemas/segments";
import { programNow } from "@/lib/domain/clock";
import { createSegment, listSegments } from "@/lib/domain/segments/store";

/** The program's segments, by name. 200. */
export const GET = apiRead(async (req, db) => ({
  status: 200,
  json: { data: await listSegments(db.prisma, req.programId) },
}));

/** Creates a segment; who is in it now is its baseline (no webhook). 201. */
export const POST = apiWrite({
  body: SegmentRequest,
  run: async (req, tx) => ({
    status: 201,
    json: await createSegment(tx, {
      programId: req.programId,
      name: req.body.name,
      filter: req.body.filter,
      emitEvents: req.body.emitEvents ?? false,
      now: programNow(req.programId),
    }),
  }),
});
