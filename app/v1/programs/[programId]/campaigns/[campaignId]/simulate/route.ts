import { uuidParam } from "@/lib/api/path-params";
import { apiWrite } from "@/lib/api/route-factories";
import { SimulationRequest } from "@/lib/api/schemas/simulations";
import { programNow } from "@/lib/domain/clock";
import { simulateCampaign } from "@/lib/domain/campaigns/simulate";
import { notFound } from "@/lib/errors";

const params = { campaignId: uuidParam(() => notFound("campaign")) };

/**
 * Replays the window's history twice, without and with the campaign's draft (lib/domain/campaigns/simulate.ts), and
 * answers the difference. Stores nothing, not even an Idempotency-Key's outcome: it runs outside any transaction
 * (`statement`) and a repeat simply simulates again. 200.
 */
export const POST = apiWrite({
  params,
  body: SimulationRequest,
  storesNothing: () => true,
  statement: async (req, database) => {
    const report = await simulateCampaign(database.prisma, {
      programId: req.programId,
      campaignId: req.params.campaignId!,
      from: new Date(req.body.from),
      to: new Date(req.body.to),
      now: programNow(req.programId),
    });
    return { status: 200, body: JSON.stringify(report), replayed: false };
  },
  run: async () => {
    throw new Error("simulate: answered by its statement");
  },
});
