import "server-only";
import type { Tx } from "@/lib/db/types";
import { rewardLimitReached, rewardTierRequired } from "@/lib/errors";
import { tierRank } from "./tier-ranking";

/**
 * The one place for a reward's per-customer rules (Reward.perCustomerLimit, Reward.minTierId): who may redeem it,
 * checked inside the redemption's transaction, before anything is written. A reward without rules costs nothing
 * here (no statement is run). Kept apart from redeemReward so the redeem statement can fold it in.
 *
 * - Per-customer limit: the customer's redemptions of this reward, ever, must be fewer than the limit (a cancelled
 *   redemption does not count, lib/domain/redemption-cancel.ts). The count is
 *   read after the customer's balance row is locked (the lock every balance change takes first), so two concurrent
 *   redemptions by one customer are counted one after the other and cannot both pass.
 * - Minimum tier: the customer's current tier must rank at or above the reward's tier, ranks being the order of
 *   tier-ranking.ts `tierRank` (requiredPoints, then id). A customer without a tier is below every tier.
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
  SELECT t.id, t.name, ${tierRank("t")} AS rank
  FROM "Tier" t WHERE t."programId" = $3::uuid
)
SELECT (SELECT count(*)::int FROM "Redemption" r, locked
          WHERE r."customerId" = locked."customerId" AND r."rewardId" = $2::uuid AND r."cancelledAt" IS NULL) AS redeemed,
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

/**
 * The same rules as CTEs of the API's one redeem statement (rewards.ts `REDEEM_WRITE`), read from its snapshot:
 * `rules_seen` gives the customer's redemptions of the reward and the ranks, as REDEEM_RULES_SQL does (without the row
 * lock: the statement's balance UPDATE requires the balance row it read, so a redemption that committed meanwhile
 * sends the request to the locked path, which counts again). `rw` must be the reward's row (with "perCustomerLimit" AS
 * lim and "minTierId"); `why` is null when the customer may redeem, else the error code with its detail after a ":".
 */
export const redeemRulesCtes = (p: { programId: string; customerId: string }) => `rules_ranked AS (
  SELECT t.id, t.name, ${tierRank("t")} AS rank
  FROM "Tier" t WHERE t."programId" = ${p.programId} AND EXISTS (SELECT 1 FROM rw WHERE rw."minTierId" IS NOT NULL)
), rules_seen AS (
  SELECT (SELECT count(*)::int FROM "Redemption" x
           WHERE x."customerId" = ${p.customerId} AND x."rewardId" = rw.id AND rw.lim IS NOT NULL
             AND x."cancelledAt" IS NULL) AS redeemed,
         (SELECT k.rank FROM rules_ranked k JOIN "CustomerTier" ct ON ct."currentTierId" = k.id
           WHERE ct."programId" = ${p.programId} AND ct."customerId" = ${p.customerId})::int AS "customerRank",
         (SELECT k.rank FROM rules_ranked k WHERE k.id = rw."minTierId")::int AS "requiredRank",
         (SELECT k.name FROM rules_ranked k WHERE k.id = rw."minTierId") AS "requiredName",
         rw.lim, rw."minTierId"
  FROM rw
), rules AS (
  SELECT CASE WHEN s.lim IS NOT NULL AND s.redeemed >= s.lim THEN 'reward_limit_reached:' || s.lim
              WHEN s."minTierId" IS NOT NULL AND s."requiredRank" IS NOT NULL AND coalesce(s."customerRank", 0) < s."requiredRank"
                THEN 'reward_tier_required:' || coalesce(s."requiredName", 'required')
         END AS why
  FROM rules_seen s
)`;

/** The error of a `redeemRulesCtes` refusal (`reward_limit_reached:<limit>`, `reward_tier_required:<tier>`), or null. */
export function redeemRuleRefusal(why: string) {
  const at = why.indexOf(":");
  const [code, detail] = at < 0 ? [why, ""] : [why.slice(0, at), why.slice(at + 1)];
  if (code === "reward_limit_reached") return rewardLimitReached(Number(detail));
  if (code === "reward_tier_required") return rewardTierRequired(detail);
  return null;
}
