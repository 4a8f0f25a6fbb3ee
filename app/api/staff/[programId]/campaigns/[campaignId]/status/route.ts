import { staffWrite } from "@/lib/staff/http";
import { CampaignMove } from "@/lib/staff/forms/campaigns";
import { moveCampaignAsStaff } from "@/lib/staff/operations/campaigns";

/** Activates (the draft becomes the next version), pauses, resumes or ends a campaign; 200. */
export const POST = staffWrite(moveCampaignAsStaff, {
  body: CampaignMove,
  args: (req) => [req.params.campaignId!, req.body],
});
