import { z } from "zod";
import type { BalanceExplained as Explained } from "@/lib/domain/balance-explained";
import { EXPIRY_CHART_MONTHS, MAX_LISTED_LOTS } from "@/lib/domain/balance-explained-limits";
import { LEDGER_TYPES, TIER_STATUSES } from "@/lib/domain/vocabulary";
import { Id, Timestamp } from "./common";

/** "Why is my balance X?" (Explain a balance, and the same for the token's customer): lib/domain/balance-explained.ts. */

const Points = z.number().int();

export const TierRef = z
  .object({ id: Id, name: z.string(), requiredPoints: Points })
  .meta({ id: "TierRef", description: "A tier, named." });

const Total = z.object({
  points: Points.describe("Points, as a positive number."),
  entries: z.number().int().describe("How many ledger entries."),
});

export const OpenLot = z
  .object({
    transactionId: Id.describe("The ledger entry the points came from (Points history)."),
    type: z.enum(LEDGER_TYPES).describe("The entry's type: `earn`, or an `adjust` that added points."),
    reason: z.string().nullable(),
    points: Points.describe("The points the entry added."),
    remaining: Points.describe("What is left of them: not spent, not expired."),
    earnedAt: Timestamp,
    expiresAt: Timestamp.nullable().describe("When the remaining points expire; null: never."),
  })
  .meta({ id: "OpenLot", description: "What is left of one ledger entry that added points." });

export const BalanceExplained = z
  .object({
    balance: Points.describe("The balance: the sum of `remaining` over every open lot."),
    asOf: Timestamp.describe("The moment this explanation describes."),
    lots: z
      .array(OpenLot)
      .max(MAX_LISTED_LOTS)
      .describe(
        `The open lots in the order they are spent and expire (soonest expiry first, never-expiring last, oldest first), ` +
          `at most ${MAX_LISTED_LOTS}. Their \`remaining\` plus \`unlistedPoints\` equals \`balance\`.`,
      ),
    lotsCount: z.number().int().describe("How many open lots the customer has, listed or not."),
    lotsTruncated: z.boolean().describe(`Whether some open lots are not listed (more than ${MAX_LISTED_LOTS}).`),
    unlistedPoints: Points.describe("The points of the lots not listed: 0 unless `lotsTruncated`."),
    pending: z
      .object({
        points: Points.describe("Pending points in all: earned, not spendable yet, not in `balance`."),
        items: z.array(
          z.object({
            id: Id,
            points: Points,
            orderId: z.string().nullable(),
            createdAt: Timestamp,
            maturesAt: Timestamp.nullable().describe("When they become spendable; null: when the order is confirmed."),
          }),
        ),
      })
      .describe('Pending points (API.md §4 "Pending points"), soonest to mature first.'),
    expiring: z
      .object({
        within30Days: Points,
        within60Days: Points,
        within90Days: Points,
      })
      .describe(
        "Points that expire within 30, 60 and 90 days of `asOf` (each window includes the shorter ones, and points already past their expiry that the expiry job has not removed yet).",
      ),
    expiringByMonth: z
      .array(z.object({ month: z.string().meta({ examples: ["2026-11"] }), points: Points }))
      .length(EXPIRY_CHART_MONTHS)
      .describe(
        `Points expiring in each calendar month (UTC) from the current one, ${EXPIRY_CHART_MONTHS} months; points past their expiry count in the current month.`,
      ),
    tier: z
      .object({
        current: TierRef.nullable().describe("The tier the customer holds now."),
        status: z.enum(TIER_STATUSES),
        projected: TierRef.nullable().describe(
          "The tier the customer will hold after the period closes at `periodEnd`, if nothing more is earned (API.md §4: the better of the tier this period's points reach and the base tier).",
        ),
        next: TierRef.nullable().describe("The next tier to reach; null at the top."),
        pointsToNext: Points.describe("Tier points still missing for `next` (0 at the top)."),
        points: Points.describe("Tier points of the current period: `earned` − `reversed`."),
        periodStart: Timestamp.describe(
          "When the current period started: `periodEnd` less the program's tier period, or when the customer was created.",
        ),
        periodEnd: Timestamp.nullable().describe("When the period closes and the tier is recalculated."),
        earned: Total.describe("`earn` entries of the period: they count towards the tier."),
        reversed: Total.describe("Reversals of this period's earns: they lower the tier points."),
        notCounted: z
          .array(
            z.object({ type: z.enum(LEDGER_TYPES), points: Points.describe("Signed sum."), entries: z.number().int() }),
          )
          .describe(
            "Every other entry of the period, totalled per type: adjustments, spends, redemptions, expiries and other reversals do not change tier points.",
          ),
      })
      .describe("The tier and the tier points of the current period: what counts and what does not."),
  })
  .meta({ id: "BalanceExplained" }) satisfies z.ZodType<Explained>;
