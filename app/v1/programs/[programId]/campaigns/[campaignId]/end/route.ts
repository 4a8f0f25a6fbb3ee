import { campaignMoveRoute } from "@/lib/api/campaign-routes";

/** Ends a campaign for good. 200. */
export const POST = campaignMoveRoute("end");
