import { staffWrite } from "@/lib/staff/http";
import { CampaignForm } from "@/lib/staff/forms/campaigns";
import { createCampaignAsStaff } from "@/lib/staff/operations/campaigns";

/** Creates a campaign as a draft (it runs once activated); 201. */
export const POST = staffWrite(createCampaignAsStaff, {
  body: CampaignForm,
  status: 201,
  args: (req) => [req.body],
});
