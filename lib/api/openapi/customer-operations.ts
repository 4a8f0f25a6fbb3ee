import "server-only";
import { MAX_BALANCE } from "@/lib/domain/ledger";
import type { OperationSpec } from "./operation";
import { email, idempotencyKey, programId } from "./parameters";
import { CUSTOMER_ERRORS, WRITE_ERRORS, type ErrorSpec } from "./problems";

/**
 * What the operations on a customer share between their openapi.ts files (app/v1/programs/[programId]/customers and
 * me): the routes that exist twice (increase and decrease balance; redeem and explain a balance for the integrator
 * and for the token's customer) and the balance ceiling several writes answer with.
 */

export const BALANCE_LIMIT = ["balance_limit", `at most ${MAX_BALANCE.toLocaleString("en-US")} points`] as const;

/** What Explain a balance (and its /me twin) answers. */
export const BALANCE_EXPLAINED =
  "Why the balance is what it is: the open lots (what is left of each entry that added points, in the order they are spent " +
  "and expire) adding up to the balance, the points expiring within 30, 60 and 90 days and per month, and the tier points " +
  "of the current period with what counts (earns, less reversals of them) and what does not (adjustments, spends, " +
  "redemptions, expiries), with the current, projected and next tier.";

export const REDEEM_ERRORS = [
  ["reward_not_found", "also a `rewardId` that is not a UUID"],
  "insufficient_balance",
  "reward_out_of_stock",
  "reward_inactive",
  "reward_limit_reached",
  "reward_tier_required",
] as const satisfies readonly ErrorSpec[];

/** Increase or decrease balance: the same operation but for its body and the conflict it may answer. */
export const balanceMove = (
  operationId: string,
  summary: string,
  description: string,
  body: "PointsIncrease" | "PointsChange",
  conflict: ErrorSpec,
): OperationSpec => ({
  operationId,
  summary,
  description,
  tag: "Points",
  parameters: [programId, email, idempotencyKey],
  body: { schema: body, required: true },
  success: { status: 200, description: "The new balance and the ledger entry written.", schema: "BalanceResult" },
  errors: [...CUSTOMER_ERRORS, ...WRITE_ERRORS, conflict],
});
