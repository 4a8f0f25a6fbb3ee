import { apiRead, apiWrite } from "@/lib/api/route-factories";
import { CampaignBody, campaignBodyOf } from "@/lib/api/schemas/campaigns";
import { programNow } from "@/lib/domain/clock";
import { createCampaign, listCampaigns } from "@/lib/domain/campaigns/store";

/** The program's campaigns, newest first. 200. */
export const GET = apiRead(async (req, db) => ({
  status: 200,
  json: { data: await listCampaigns(db.prisma, req.programId) },
}));

/** Creates a campaign as a draft (it runs once activated). 201. */
export const POST = apiWrite({
  body: CampaignBody,
  run: async (req, tx) => ({
    status: 201,
    json: await createCampaign(tx, {
      programId: req.programId,
      body: campaignBodyOf(req.body),
      now: programNow(req.programId),
    }),
  }),
});
