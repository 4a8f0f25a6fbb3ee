import { apiWrite } from "@/lib/api/route-factories";
import { SegmentPreviewRequest } from "@/lib/api/schemas/segments";
import { programNow } from "@/lib/domain/clock";
import { previewSegment } from "@/lib/domain/segments/store";

/** How many customers a filter selects now, and the first 20: the segment builder's live count. 200. */
export const POST = apiWrite({
  body: SegmentPreviewRequest,
  storesNothing: () => true,
  run: async (req, tx) => ({
    status: 200,
    json: await previewSegment(tx, req.programId, req.body.filter, programNow(req.programId)),
  }),
});
