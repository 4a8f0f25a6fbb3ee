import { uuidParam } from "@/lib/api/path-params";
import { apiRead, apiWrite } from "@/lib/api/route-factories";
import { CampaignBody, campaignBodyOf } from "@/lib/api/schemas/campaigns";
import { programNow } from "@/lib/domain/clock";
import { getCampaign, updateCampaignDraft } from "@/lib/domain/campaigns/store";
import { notFound } from "@/lib/errors";

const params = { campaignId: uuidParam(() => notFound("campaign")) };

/** One campaign with every version it has had. 200. */
export const GET = apiRead({
  params,
  run: async (req, db) => ({ status: 200, json: await getCampaign(db.prisma, req.programId, req.params.campaignId!) }),
});

/** Replaces the campaign's draft: the next activation freezes it as a new version. 200. */
export const PUT = apiWrite({
  params,
  body: CampaignBody,
  run: async (req, tx) => ({
    status: 200,
    json: await updateCampaignDraft(tx, {
      programId: req.programId,
      campaignId: req.params.campaignId!,
      body: campaignBodyOf(req.body),
      now: programNow(req.programId),
    }),
  }),
});
