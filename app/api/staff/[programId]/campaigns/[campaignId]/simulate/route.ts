import { staffWrite } from "@/lib/staff/http";
import { SimulationForm } from "@/lib/staff/forms/simulation";
import { simulateCampaignAsStaff } from "@/lib/staff/operations/campaign-simulation";

/** The campaign's draft simulated over the last `days` days (managers and owners); 200 with the report. Stores nothing. */
export const POST = staffWrite(simulateCampaignAsStaff, {
  body: SimulationForm,
  args: (req) => [req.params.campaignId ?? "", req.body],
});
