import type { OperationSpec } from "@/lib/api/openapi/operation";
import { campaignId, programId } from "@/lib/api/openapi/parameters";
import { BODY_ERRORS, CAMPAIGN_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operations of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getCampaign",
  summary: "Get a campaign",
  description: "One campaign with its versions, oldest first: each version is immutable.",
  tag: "Campaigns",
  parameters: [programId, campaignId],
  success: { status: 200, description: "The campaign and its versions.", schema: "CampaignDetail" },
  errors: CAMPAIGN_ERRORS,
};

export const PUT: OperationSpec = {
  operationId: "updateCampaign",
  summary: "Change a campaign",
  description:
    "Replaces the campaign's draft. An activated campaign keeps running its version until the next activation freezes the draft as version N+1. An ended campaign cannot change (409 `conflict`).",
  tag: "Campaigns",
  parameters: [programId, campaignId],
  body: { schema: "CampaignBody", required: true },
  success: { status: 200, description: "The campaign with its new draft.", schema: "Campaign" },
  errors: [...CAMPAIGN_ERRORS, ...BODY_ERRORS, "conflict"],
};
