import "server-only";
import type { Tx } from "@/lib/db/types";
import { rewardLimitReached, rewardTierRequired } from "@/lib/errors";

/**
 * The one place for a reward's per-customer rules (Reward.perCustomerLimit, Reward.minTierId): who may redeem it,
 * checked inside the redemption's transaction, before anything is written. A reward without rules costs nothing
 * here (no statement is run). Kept apart from redeemReward so the redeem statement can fold it in.
 *
 * - Per-customer limit: the customer's redemptions of this reward, ever, must be fewer than the limit. The count is
 *   read after the customer's balance row is locked (the lock every balance change takes first), so two concurrent
 *   redemptions by one customer are counted one after the other and cannot both pass.
 * - Minimum tier: the customer's current tier must rank at or above the reward's tier, ranks being the order of
 *   tier-rules.ts `sortTiers` (requiredPoints, then id). A customer without a tier is below every tier.
 */

export interface RedeemRules {
  perCustomerLimit: number | null;
  minTierId: string | null;
}

/**
 * Locks the customer's balance row and reads, in one round trip, how often they redeemed the reward and how their
 * current tier ranks against the reward's minimum tier.
 */
export const REDEEM_RULES_SQL = `
WITH locked AS (
  SELECT "customerId" FROM "LoyaltyData" WHERE "customerId" = $1::uuid FOR UPDATE
), ranked AS (
  SELECT t.id, t.name, row_number() OVER (ORDER BY t."requiredPoints", t.id) AS rank
  FROM "Tier" t WHERE t."programId" = $3::uuid
)
SELECT (SELECT count(*)::int FROM "Redemption" r, locked WHERE r."customerId" = locked."customerId" AND r."rewardId" = $2::uuid) AS redeemed,
       (SELECT rank FROM ranked JOIN "CustomerTier" ct ON ct."currentTierId" = ranked.id, locked
          WHERE ct."customerId" = locked."customerId")::int AS "customerRank",
       (SELECT rank FROM ranked WHERE id = $4::uuid)::int AS "requiredRank",
       (SELECT name FROM ranked WHERE id = $4::uuid) AS "requiredName"`;

/** Throws 409 `reward_limit_reached` or `reward_tier_required` when the customer may not redeem the reward. */
export async function checkRedeemRules(
  tx: Tx,
  customerId: string,
  rewardId: string,
  programId: string,
  rules: RedeemRules,
) {
  if (rules.perCustomerLimit === null && rules.minTierId === null) return;
  const [row] = await tx.$queryRawUnsafe<
    { redeemed: number; customerRank: number | null; requiredRank: number | null; requiredName: string | null }[]
  >(REDEEM_RULES_SQL, customerId, rewardId, programId, rules.minTierId);
  if (!row) return;
  if (rules.perCustomerLimit !== null && Number(row.redeemed) >= rules.perCustomerLimit)
    throw rewardLimitReached(rules.perCustomerLimit);
  if (rules.minTierId !== null && row.requiredRank !== null && (row.customerRank ?? 0) < row.requiredRank)
    throw rewardTierRequired(row.requiredName ?? "required");
}
