import { apiRead, apiWrite } from "@/lib/api/route-factories";
import { CampaignBody, campaignBodyOf } from "@/lib/api/schemas/campaigns";
import { PageQuery } from "@/lib/api/schemas/common";
import { programNow } from "@/lib/domain/clock";
import { createCampaign, listCampaigns } from "@/lib/domain/campaigns/store";

/** The program's campaigns, newest first, cursor-paginated. 200. */
export const GET = apiRead({
  query: PageQuery,
  run: async (req, db) => ({
    status: 200,
    json: await listCampaigns(db.prisma, req.programId, { limit: req.query.limit, cursor: req.query.cursor }),
  }),
});

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
