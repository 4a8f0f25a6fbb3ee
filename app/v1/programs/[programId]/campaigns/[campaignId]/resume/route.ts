import { uuidParam } from "@/lib/api/path-params";
import { apiWrite } from "@/lib/api/route-factories";
import { programNow } from "@/lib/domain/clock";
import { moveCampaign } from "@/lib/domain/campaigns/store";
import { notFound } from "@/lib/errors";

/** Runs a paused campaign again. 200. */
export const POST = apiWrite({
  params: { campaignId: uuidParam(() => notFound("campaign")) },
  run: async (req, tx) => ({
    status: 200,
    json: await moveCampaign(tx, {
      programId: req.programId,
      campaignId: req.params.campaignId!,
      move: "resume",
      now: programNow(req.programId),
    }),
  }),
});
