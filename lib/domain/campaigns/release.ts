import "server-only";
import type { Tx } from "@/lib/db/types";

/**
 * What a reversal gives back to the campaign that made the entry (API.md "Campaigns and events", policy): the points
 * actually taken back return to the campaign's budget (points the customer had already spent, `unrecovered`, stay
 * counted: they were given), and the customer's use of the campaign in the entry's window is given back once, by the
 * reversal that leaves nothing of the entry to reverse. Called by reversals.ts `reverseEntry` (and so by every order
 * refund) in its transaction, after the customer's row lock; the campaign's row lock comes after it, the order the
 * events path takes them in.
 */
export async function releaseCampaignUse(
  tx: Tx,
  input: { programId: string; customerId: string; entryId: string; taken: number; leftAfter: number },
) {
  const [entry] = await tx.$queryRawUnsafe<{ campaignId: string | null; window: string | null; budgeted: boolean }[]>(
    `SELECT metadata->>'campaignId' AS "campaignId", metadata->>'window' AS "window",
            coalesce((metadata->>'budgeted')::boolean, false) AS budgeted
     FROM "LedgerEntry" WHERE id = $1::uuid AND "programId" = $2::uuid AND metadata->>'campaignId' IS NOT NULL`,
    input.entryId,
    input.programId,
  );
  if (!entry?.campaignId) return;
  if (entry.budgeted && input.taken > 0)
    await tx.$executeRawUnsafe(
      `UPDATE "Campaign" SET "budgetUsed" = greatest(0, "budgetUsed" - $2) WHERE id = $1::uuid AND "programId" = $3::uuid`,
      entry.campaignId,
      input.taken,
      input.programId,
    );
  if (entry.window !== null && input.leftAfter === 0)
    await tx.$executeRawUnsafe(
      `UPDATE "CampaignUsage" SET count = count - 1
       WHERE "campaignId" = $1::uuid AND "customerId" = $2::uuid AND "window" = $3 AND count > 0`,
      entry.campaignId,
      input.customerId,
      entry.window,
    );
}
