import "server-only";
import { idempotencyKey, operation, programId } from "./operations";
import { INTEGRATOR_ERRORS, WRITE_ERRORS } from "./problems";

/** The integrator's operations on a redemption by its id (part of ./paths.ts). */

export const redemptionId = {
  name: "redemptionId",
  in: "path",
  required: true,
  description:
    "The redemption's id (`redemption.id` of Redeem a reward). A value that is not a UUID is an unknown redemption (404 `redemption_not_found`).",
  schema: { type: "string" },
  example: "0193a5b3-04b0-72da-8fee-c1b0ad9e8f76",
};

export const redemptionPaths: Record<string, unknown> = {
  "/v1/programs/{programId}/redemptions/{redemptionId}/cancel": operation("post", {
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
  }),
};
