import "server-only";
import { rewardLimitReached, rewardTierRequired } from "@/lib/errors";
import { tierRank } from "./tier-ranking";
import { raw, sql, type Sql } from "@/lib/db/sql";

/**
 * The one place for a reward's per-customer rules (Reward.perCustomerLimit, Reward.minTierId): who may redeem it,
 * decided by the redemption's statement (rewards.ts `redeemWrite`, on both of its paths) before anything is written.
 * A reward without rules costs nothing here (the CTEs read no redemption and no tier).
 *
 * - Per-customer limit: the customer's redemptions of this reward, ever, must be fewer than the limit (a cancelled
 *   redemption does not count, lib/domain/redemption-cancel.ts). Two concurrent redemptions by one customer cannot
 *   both pass: on the locked path the count is read after the customer's balance row is locked (the lock every
 *   balance change takes first), so they are counted one after the other; on the one-statement path see below.
 * - Minimum tier: the customer's current tier must rank at or above the reward's tier, ranks being the order of
 *   tier-ranking.ts `tierRank` (requiredPoints, then id). A customer without a tier is below every tier.
 */

/**
 * The rules as CTEs of the redemption's statement (rewards.ts `redeemWrite`), read from its snapshot: `rules_seen`
 * gives the customer's redemptions of the reward and the ranks. On the one-statement path the balance row is not
 * locked before the count, but the statement's balance UPDATE requires the balance row it read, so a redemption that
 * committed meanwhile sends the request to the locked path, which locks the row and counts again. `rw` must be the reward's row (with "perCustomerLimit" AS
 * lim and "minTierId"); `why` is null when the customer may redeem, else the error code with its detail after a ":".
 */
export const redeemRulesCtes = (p: { programId: Sql; customerId: Sql }) => sql`rules_ranked AS (
  SELECT t.id, t.name, ${raw(tierRank("t"))} AS rank
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
