import { campaignMoveRoute } from "@/lib/api/campaign-routes";

/** Stops an active campaign (events no longer trigger it). 200. */
export const POST = campaignMoveRoute("pause");
