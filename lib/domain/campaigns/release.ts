import "server-only";
import type { Tx } from "@/lib/db/types";

/**
 * What a campaign gets back when points it gave are taken back (API.md "Campaigns and events", policy), decided here
 * once for every path that takes them back:
 *  - a reversal of the campaign's ledger entry (reversals.ts `reverseEntry`, and so every order refund of spendable
 *    points): the points actually taken back return to the campaign's budget (points the customer had already spent,
 *    `unrecovered`, stay counted: they were given);
 *  - a cancel of the campaign's pending points (pending.ts `cancelPending`, an order refund before they matured):
 *    the points cancelled return to the budget (they were never given; the budget counted them when they went
 *    pending);
 * and in both, the customer's use of the campaign in the entry's window is given back once, by the take-back that
 * leaves nothing of the entry (`leftAfter` 0). Called in the caller's transaction after the customer's balance row
 * lock; the campaign's row lock comes after it, the order the events path takes them in (customer, then the
 * campaign's slices and row: budget.ts), so no deadlock. The budget is given back on the campaign's row
 * (`budgetUsed`, which counts the slices' room too, budget.ts): an atomic decrement, so concurrent events spending the
 * budget and take-backs add up exactly.
 */
export interface CampaignTakeBack {
  programId: string;
  customerId: string;
  /** The metadata the campaign wrote on its entry (or pending row): campaignId, window, budgeted. */
  metadata: { campaignId?: unknown; window?: unknown; budgeted?: unknown } | null;
  /** Points taken back from the customer (reversed and recovered, or cancelled while pending). */
  taken: number;
  /** What is left of the entry to take back after this. */
  leftAfter: number;
}

export async function releaseCampaignPoints(tx: Tx, input: CampaignTakeBack) {
  const campaignId = typeof input.metadata?.campaignId === "string" ? input.metadata.campaignId : null;
  if (!campaignId) return;
  const window = typeof input.metadata?.window === "string" ? input.metadata.window : null;
  const budgeted = input.metadata?.budgeted === true || input.metadata?.budgeted === "true";
  if (budgeted && input.taken > 0)
    await tx.$executeRawUnsafe(
      `UPDATE "Campaign" SET "budgetUsed" = greatest(0, "budgetUsed" - $2) WHERE id = $1::uuid AND "programId" = $3::uuid`,
      campaignId,
      input.taken,
      input.programId,
    );
  if (window !== null && input.leftAfter === 0)
    await tx.$executeRawUnsafe(
      `UPDATE "CampaignUsage" SET count = count - 1
       WHERE "campaignId" = $1::uuid AND "customerId" = $2::uuid AND "window" = $3 AND count > 0`,
      campaignId,
      input.customerId,
      window,
    );
}

/** A reversal of ledger entry `entryId` (reversals.ts): `releaseCampaignPoints` with the entry's campaign metadata. */
export async function releaseCampaignUse(
  tx: Tx,
  input: { programId: string; customerId: string; entryId: string; taken: number; leftAfter: number },
) {
  const [entry] = await tx.$queryRawUnsafe<{ metadata: CampaignTakeBack["metadata"] }[]>(
    `SELECT metadata FROM "LedgerEntry"
     WHERE id = $1::uuid AND "programId" = $2::uuid AND metadata->>'campaignId' IS NOT NULL`,
    input.entryId,
    input.programId,
  );
  if (!entry) return;
  await releaseCampaignPoints(tx, {
    programId: input.programId,
    customerId: input.customerId,
    metadata: entry.metadata,
    taken: input.taken,
    leftAfter: input.leftAfter,
  });
}
