import { staffWrite } from "@/lib/staff/http";
import { CampaignForm } from "@/lib/staff/forms/campaigns";
import { updateCampaignDraftAsStaff } from "@/lib/staff/operations/campaigns";

/** Replaces a campaign's draft (its next version once activated); 200. */
export const PUT = staffWrite(updateCampaignDraftAsStaff, {
  body: CampaignForm,
  args: (req) => [req.params.campaignId!, req.body],
});
