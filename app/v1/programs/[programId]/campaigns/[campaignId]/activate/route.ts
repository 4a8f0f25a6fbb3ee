import { uuidParam } from "@/lib/api/path-params";
import { apiWrite } from "@/lib/api/route-factories";
import { programNow } from "@/lib/domain/clock";
import { activateCampaign } from "@/lib/domain/campaigns/store";
import { notFound } from "@/lib/errors";

/** Freezes the draft as the next version (immutable) and runs it. 200. */
export const POST = apiWrite({
  params: { campaignId: uuidParam(() => notFound("campaign")) },
  run: async (req, tx) => ({
    status: 200,
    json: await activateCampaign(tx, {
      programId: req.programId,
      campaignId: req.params.campaignId!,
      now: programNow(req.programId),
    }),
  }),
});
