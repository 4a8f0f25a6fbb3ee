import type { OperationSpec } from "@/lib/api/openapi/operation";
import { campaignId, idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { CAMPAIGN_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "activateCampaign",
  summary: "Activate a campaign",
  description:
    "Freezes the campaign's draft as its next version (immutable) and makes it active. 409 `conflict` when there is no draft to activate or the campaign has ended; 400 `validation_failed` when the draft no longer fits its event type's declaration.",
  tag: "Campaigns",
  parameters: [programId, campaignId, idempotencyKey],
  success: { status: 200, description: "The campaign.", schema: "Campaign" },
  errors: [...CAMPAIGN_ERRORS, "validation_failed", "conflict", "idempotency_conflict"],
};
