import "server-only";
import { adjustmentAboveCeiling } from "@/lib/errors";
import { requireCustomer } from "@/lib/domain/customer-lookup";
import { aboveCeiling } from "@/lib/domain/adjustment-ceilings";
import { programAdjustCeilings } from "@/lib/domain/programs";
import { leftToReverse, loadOriginal, reverseEntry } from "@/lib/domain/reversals";
import { tierAtClose } from "@/lib/domain/tier-rules";
import { loadTierState } from "@/lib/domain/tiers-engine";
import type { Tx } from "@/lib/db/types";
import { audited } from "../audit";
import { staffOperation } from "../authz";
import type { ReversalForm } from "../forms/reversals";

/**
 * A reversal from the customer's timeline: the same domain function as the API (lib/domain/reversals.ts), within
 * the role's adjustment ceiling (the points reversed, or all that is left of the entry), audited in the same
 * transaction. Answers the outcome and the tier the customer would hold at the next recalculation.
 */
export const reverseForCustomer = staffOperation(
  "balance.adjust",
  async (tx, staff, customerId: string, transactionId: string, input: ReversalForm) => {
    await requireCustomer(tx, staff.programId, customerId);
    const original = await loadOriginal(tx, staff.programId, customerId, transactionId);
    const points = input.points ?? leftToReverse(original);
    const refusal = aboveCeiling(staff.role, await programAdjustCeilings(tx, staff.programId), points);
    if (refusal) throw adjustmentAboveCeiling(refusal);
    const outcome = await reverseEntry(tx, {
      programId: staff.programId,
      customerId,
      transactionId: original.id,
      points: input.points,
      reason: input.reason,
      source: "dashboard",
      actor: `staff:${staff.staffId}`,
    });
    await audited(
      tx,
      staff,
      "balance.reverse",
      { type: "customer", id: customerId },
      { transactionId: original.id, reversed: original.reversed },
      {
        transactionId: original.id,
        reversalId: outcome.entryId,
        requested: outcome.requested,
        unrecovered: outcome.unrecovered,
        tierPoints: outcome.tierPoints,
        balance: outcome.balance,
        reason: input.reason,
      },
    );
    return {
      balance: outcome.balance,
      requested: outcome.requested,
      unrecovered: outcome.unrecovered,
      tierPoints: outcome.tierPoints,
      projectedTier: await projectedTier(tx, staff.programId, customerId),
      transaction: JSON.parse(outcome.entryJson),
    };
  },
);

/** The tier the customer's current period points would keep at recalculation (API.md §4): at least the lowest. */
async function projectedTier(tx: Tx, programId: string, customerId: string) {
  const loaded = await loadTierState(tx, programId, customerId);
  if (!loaded) return null;
  const points = loaded.state.currentTierPoints;
  const tier = tierAtClose(loaded.tiers, points);
  return tier === null ? null : { name: tier.name, periodPoints: points };
}
