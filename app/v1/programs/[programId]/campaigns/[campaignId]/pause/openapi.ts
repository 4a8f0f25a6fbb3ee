import type { OperationSpec } from "@/lib/api/openapi/operation";
import { campaignId, idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { CAMPAIGN_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "pauseCampaign",
  summary: "Pause a campaign",
  description: "Stops an active campaign: events no longer trigger it. 409 `conflict` unless it is active.",
  tag: "Campaigns",
  parameters: [programId, campaignId, idempotencyKey],
  success: { status: 200, description: "The campaign.", schema: "Campaign" },
  errors: [...CAMPAIGN_ERRORS, "conflict", "idempotency_conflict"],
};
