import "server-only";
import { uuidParam } from "@/lib/api/path-params";
import { apiWrite } from "@/lib/api/route-factories";
import { programNow } from "@/lib/domain/clock";
import { moveCampaign } from "@/lib/domain/campaigns/store";
import { notFound } from "@/lib/errors";

/** `POST …/campaigns/{campaignId}/<move>`: pause, resume and end differ only in the move. 200 with the campaign. */
export const campaignMoveRoute = (move: "pause" | "resume" | "end") =>
  apiWrite({
    params: { campaignId: uuidParam(() => notFound("campaign")) },
    run: async (req, tx) => ({
      status: 200,
      json: await moveCampaign(tx, {
        programId: req.programId,
        campaignId: req.params.campaignId!,
        move,
        now: programNow(req.programId),
      }),
    }),
  });
