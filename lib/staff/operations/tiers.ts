import "server-only";
import { removeTier, requireTier, updateTier } from "@/lib/domain/tiers";
import { audited, auditedUpdate } from "../audit";
import { staffOperation } from "../authz";
import type { TierUpdate } from "../forms/tiers";

/**
 * The staff edits of a program's tiers (managers and owners). A new threshold or a removal re-evaluates the
 * program's customers in the same transaction (lib/domain/tiers.ts reevaluateTiers); the audit row keeps the tier
 * before → after and how many customers changed tier.
 */

export const updateTierAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, tierId: string, input: TierUpdate, version?: string) => {
    const {
      after,
      result,
      version: next,
    } = await auditedUpdate(
      tx,
      staff,
      "tier.update",
      { type: "tier", id: tierId },
      {
        read: () => requireTier(tx, staff.programId, tierId),
        change: () => updateTier(tx, staff.programId, tierId, input),
        version: { of: "tier", expected: version },
      },
    );
    return { ...after, customersMoved: result.customersMoved, version: next };
  },
);

export const removeTierAsStaff = staffOperation("program.manage", async (tx, staff, tierId: string) => {
  const before = await requireTier(tx, staff.programId, tierId);
  const result = await removeTier(tx, staff.programId, tierId);
  await audited(tx, staff, "tier.remove", { type: "tier", id: tierId }, before, {
    removed: true,
    customersMoved: result.customersMoved,
  });
  return result;
});
