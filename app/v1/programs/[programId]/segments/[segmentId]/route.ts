import { uuidParam } from "@/lib/api/path-params";
import { apiRead, apiWrite } from "@/lib/api/route-factories";
import { SegmentRequest } from "@/lib/api/schemas/segments";
import { programNow } from "@/lib/domain/clock";
import { deleteSegment, getSegment, updateSegment } from "@/lib/domain/segments/store";
import { notFound } from "@/lib/errors";

const params = { segmentId: uuidParam(() => notFound("segment")) };

/** One segment. 200. */
export const GET = apiRead({
  params,
  run: async (req, db) => ({ status: 200, json: await getSegment(db.prisma, req.programId, req.params.segmentId!) }),
});

/** Replaces a segment's name, filter and emitEvents; a changed filter is recomputed at once. 200. */
export const PUT = apiWrite({
  params,
  body: SegmentRequest,
  run: async (req, tx) => ({
    status: 200,
    json: await updateSegment(tx, {
      programId: req.programId,
      segmentId: req.params.segmentId!,
      name: req.body.name,
      filter: req.body.filter,
      emitEvents: req.body.emitEvents ?? false,
      now: programNow(req.programId),
    }),
  }),
});

/** Deletes a segment and its membership. 204. */
export const DELETE = apiWrite({
  params,
  run: async (req, tx) => {
    await deleteSegment(tx, req.programId, req.params.segmentId!);
    return { status: 204 };
  },
});
