import { uuidParam } from "@/lib/api/path-params";
import { apiRead } from "@/lib/api/route-factories";
import { SegmentMembersQuery } from "@/lib/api/schemas/segments";
import { programNow } from "@/lib/domain/clock";
import { segmentChanges, segmentMembers } from "@/lib/domain/segments/store";
import { notFound } from "@/lib/errors";

const params = { segmentId: uuidParam(() => notFound("segment")) };

/**
 * The segment's members now (the filter's query, keyset by customer id), or with `updatedSince` the changes of
 * membership recorded by the recomputes since then. 200.
 */
export const GET = apiRead({
  params,
  query: SegmentMembersQuery,
  run: async (req, db) => {
    const base = { programId: req.programId, segmentId: req.params.segmentId!, cursor: req.query.cursor ?? null };
    return {
      status: 200,
      json: req.query.updatedSince
        ? await segmentChanges(db.prisma, {
            ...base,
            limit: req.query.limit,
            updatedSince: new Date(req.query.updatedSince),
          })
        : await segmentMembers(db.prisma, { ...base, limit: req.query.limit, now: programNow(req.programId) }),
    };
  },
});
