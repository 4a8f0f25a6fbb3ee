import { staffWrite } from "@/lib/staff/http";
import { TryEventForm } from "@/lib/staff/forms/campaigns";
import { tryCampaignAsStaff } from "@/lib/staff/operations/campaigns";

/** A dry run of an event of the campaign's trigger for a customer: effects and skipped reasons, nothing stored; 200. */
export const POST = staffWrite(tryCampaignAsStaff, {
  body: TryEventForm,
  args: (req) => [req.params.campaignId!, req.body],
});
