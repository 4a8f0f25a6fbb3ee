import type { OperationSpec } from "@/lib/api/openapi/operation";
import { idempotencyKey, programId, redemptionId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "cancelRedemption",
  summary: "Cancel a redemption",
  description:
    "Within the program's cancel window (24 hours after the redemption unless the program says otherwise): gives the points back " +
    "as a `reversal` ledger entry (new points, which expire like points added now), gives a limited reward its unit of stock back, " +
    "and voids the code (`status: cancelled`). It no longer counts towards the reward's per-customer limit. Tier points do not change. " +
    "Once only: of concurrent cancels one succeeds, the others are 409 `redemption_already_cancelled` (a retry with the same " +
    "Idempotency-Key replays the success). Emits `redemption.cancelled` and `balance.changed`.",
  tag: "Rewards",
  parameters: [programId, redemptionId, idempotencyKey],
  body: { schema: "CancelRedemptionRequest", required: true },
  success: { status: 200, description: "Cancelled.", schema: "CancelRedemptionResult" },
  errors: [
    ...INTEGRATOR_ERRORS,
    [
      "redemption_not_found",
      "also a `redemptionId` that is not a UUID, another program's, or one whose customer was erased",
    ],
    ...WRITE_ERRORS,
    "redemption_already_cancelled",
    "cancel_window_closed",
    ["balance_limit", "the points given back would take the balance above its maximum"],
  ],
};
