import "server-only";
import { cancelRedemption } from "@/lib/domain/redemption-cancel";
import { audited } from "../audit";
import { staffOperation } from "../authz";
import type { CancelRedemptionForm } from "../forms/rewards";

/**
 * The staff writes on a redemption: cancelling it from the customer page, with the same domain function as the API
 * (lib/domain/redemption-cancel.ts: window, once only, points and stock back) and audited on the customer.
 */

export const cancelRedemptionAsStaff = staffOperation(
  "rewards.redeem",
  async (tx, staff, redemptionId: string, input: CancelRedemptionForm) => {
    const result = await cancelRedemption(tx, {
      programId: staff.programId,
      redemptionId,
      reason: input.reason,
      actor: `staff:${staff.staffId}`,
      source: "dashboard",
    });
    const { redemption } = result;
    await audited(
      tx,
      staff,
      "redemption.cancel",
      { type: "customer", id: result.customerId },
      { redemptionId, code: redemption.code, status: "active" },
      { redemptionId, code: redemption.code, status: "cancelled", reason: input.reason, pointsBack: redemption.points },
    );
    return { redemption, balance: result.balance };
  },
);
