import { campaignMoveRoute } from "@/lib/api/campaign-routes";

/** Runs a paused campaign again. 200. */
export const POST = campaignMoveRoute("resume");
