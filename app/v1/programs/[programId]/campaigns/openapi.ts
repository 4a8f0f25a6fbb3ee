import type { OperationSpec } from "@/lib/api/openapi/operation";
import { idempotencyKey, pageParameters, programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operations of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "listCampaigns",
  summary: "Campaigns",
  description:
    "The program's campaigns, newest first, with their status, running version, pending draft and budget used, a page at a time: follow `nextCursor` until it is null.",
  tag: "Campaigns",
  parameters: [programId, ...pageParameters],
  success: { status: 200, description: "A page of campaigns.", schema: "CampaignList" },
  errors: [...INTEGRATOR_ERRORS, ["validation_failed", "an invalid limit or cursor, or an unknown query parameter"]],
};

export const POST: OperationSpec = {
  operationId: "createCampaign",
  summary: "Create a campaign",
  description:
    "Creates a draft campaign: its trigger (a declared event type), conditions, effects, limits, schedule, priority and stacking. Checked against the event type's declaration, every problem by path. It runs once activated.",
  tag: "Campaigns",
  parameters: [programId, idempotencyKey],
  body: { schema: "CampaignBody", required: true },
  success: { status: 201, description: "The draft campaign.", schema: "Campaign" },
  errors: [...INTEGRATOR_ERRORS, ...WRITE_ERRORS],
};
