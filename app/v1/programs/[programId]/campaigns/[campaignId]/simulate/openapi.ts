import type { OperationSpec } from "@/lib/api/openapi/operation";
import { campaignId, idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { BODY_ERRORS, CAMPAIGN_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "simulateCampaign",
  summary: "Simulate a campaign's draft over real history",
  description:
    "Replays the customer events recorded in [from, to) twice through the campaign evaluator: the baseline with the campaign versions that ran at each event, the candidate with this campaign's draft in place of its version (or added). Every other ledger entry of those customers (redemptions, spends, reversals, expiries, other earns) is replayed as it happened; a real redemption the candidate balance would not have covered is counted and listed in `shortfalls`. Stores nothing and sends nothing: an Idempotency-Key is accepted as on every POST but neither stored nor replayed (a repeat simulates again), so `idempotency_conflict` never applies. The window is at most 366 days and 1,000,000 events (400 `validation_failed` beyond); 409 `conflict` when the campaign has no draft.",
  tag: "Campaigns",
  parameters: [programId, campaignId, idempotencyKey],
  body: { schema: "SimulationRequest", required: true },
  success: { status: 200, description: "The two replays and their difference.", schema: "SimulationReport" },
  errors: [...CAMPAIGN_ERRORS, ...BODY_ERRORS, "conflict", "idempotency_conflict"],
};
