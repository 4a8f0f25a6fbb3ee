import "server-only";
import { MAX_BALANCE } from "@/lib/domain/ledger";
import {
  email,
  flowKey,
  idempotencyKey,
  operation,
  pageParameters,
  programId,
  rewardId,
  transactionId,
} from "./operations";
import { CUSTOMER_ERRORS, WRITE_ERRORS, type ErrorSpec } from "./problems";

/** The integrator's operations on the customer of the `{email}` segment (part of ./paths.ts). */

const BALANCE_LIMIT = ["balance_limit", `at most ${MAX_BALANCE.toLocaleString("en-US")} points`] as const;

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

const balanceMove = (operationId: string, summary: string, description: string, conflict: ErrorSpec) =>
  operation("post", {
    operationId,
    summary,
    description,
    tag: "Points",
    parameters: [programId, email, idempotencyKey],
    body: { schema: operationId === "increaseBalance" ? "PointsIncrease" : "PointsChange", required: true },
    success: { status: 200, description: "The new balance and the ledger entry written.", schema: "BalanceResult" },
    errors: [...CUSTOMER_ERRORS, ...WRITE_ERRORS, conflict],
  });

export const customerPaths: Record<string, unknown> = {
  "/v1/programs/{programId}/customers/{email}/balance/increase": balanceMove(
    "increaseBalance",
    "Increase balance",
    "Adds points as an `earn` ledger entry; earned points count towards tiers. Name the `orderId` the points were earned with to let a later refund of that order reverse them.",
    BALANCE_LIMIT,
  ),
  "/v1/programs/{programId}/customers/{email}/balance/decrease": balanceMove(
    "decreaseBalance",
    "Decrease balance",
    "Takes points as a `spend` ledger entry, oldest points first. Never below zero.",
    "insufficient_balance",
  ),
  "/v1/programs/{programId}/customers/{email}/balance": operation("get", {
    operationId: "explainBalance",
    summary: "Explain a balance",
    description: BALANCE_EXPLAINED,
    tag: "Points",
    parameters: [programId, email],
    success: { status: 200, description: "The balance explained.", schema: "BalanceExplained" },
    errors: CUSTOMER_ERRORS,
  }),
  "/v1/programs/{programId}/customers/{email}/transactions": operation("get", {
    operationId: "listTransactions",
    summary: "Points history",
    description: "The customer's ledger, newest first, a page at a time: follow `nextCursor` until it is null.",
    tag: "Points",
    parameters: [programId, email, ...pageParameters],
    success: { status: 200, description: "A page of ledger entries.", schema: "TransactionPage" },
    errors: [...CUSTOMER_ERRORS, ["validation_failed", "an invalid limit or cursor, or an unknown query parameter"]],
  }),
  "/v1/programs/{programId}/customers/{email}/transactions/{transactionId}/reverse": operation("post", {
    operationId: "reverseTransaction",
    summary: "Reverse a transaction",
    description:
      "Writes a `reversal` entry linked to the entry (`reversesId`): part of it (`points`) or everything left. Reversals of an entry " +
      "add up to at most its points. An `earn` or positive `adjust` is taken back from the balance, the entry's own points first, " +
      "never below zero: what the customer already spent is reported as `unrecovered` (and still counts against the entry). A " +
      "reversed `earn` lowers the tier points of the period it counted in (the tier itself changes at the next recalculation). " +
      "A `spend` or negative `adjust` reversed gives the points back. Redemptions are cancelled, not reversed.",
    tag: "Points",
    parameters: [programId, email, transactionId, idempotencyKey],
    body: { schema: "ReversalRequest", required: true },
    success: {
      status: 200,
      description: "The new balance, the reversal entry and the points not recovered.",
      schema: "ReversalResult",
    },
    errors: [
      ...CUSTOMER_ERRORS,
      ["transaction_not_found", "also an id that is not a UUID, or an entry of another customer"],
      ...WRITE_ERRORS,
      "transaction_not_reversible",
      "reversal_exceeds_original",
      BALANCE_LIMIT,
    ],
  }),
  "/v1/programs/{programId}/customers/{email}/earning-flows/{flowKey}": operation("post", {
    operationId: "executeEarningFlow",
    summary: "Execute a custom earning flow for a customer",
    description:
      "Points = fixed points, or pointsPerUnit × the flow's numeric param, times the current tier's factor, rounded down; " +
      "then limited by the flow's caps. A capped run earns 0, answers 200 and names the cap in `capped`. " +
      "`params` carries only the parameters the flow declares (numbers within their bounds); anything else is refused, and the " +
      "ledger entry's metadata keeps `flowKey` and the declared values only. The body may be left out (no Content-Type, no body).",
    tag: "Earning flows",
    parameters: [programId, email, flowKey, idempotencyKey],
    body: { schema: "EarningFlowRun", required: false },
    success: { status: 200, description: "What was earned.", schema: "EarningFlowResult" },
    errors: [
      ...CUSTOMER_ERRORS,
      "earning_flow_not_found",
      ...WRITE_ERRORS,
      BALANCE_LIMIT,
      [
        "validation_failed",
        "an undeclared param, a non-number or nested value, a value out of its bounds, a missing required param or too many keys, " +
          "each listed by path (`params.amount`)",
      ],
    ],
  }),
  "/v1/programs/{programId}/customers/{email}/rewards/{rewardId}/redeem": operation("post", {
    operationId: "redeemReward",
    summary: "Redeem a reward",
    description:
      "Spends the reward's costPoints through the ledger (type `redeem`), takes one unit of stock and issues a redemption code, atomically. " +
      "The body is optional (no Content-Type, no body).",
    tag: "Rewards",
    parameters: [programId, email, rewardId, idempotencyKey],
    body: { schema: "RedeemRequest", required: false },
    success: { status: 201, description: "Redeemed.", schema: "RedeemResult" },
    errors: [...CUSTOMER_ERRORS, ...WRITE_ERRORS, ...REDEEM_ERRORS],
  }),
  "/v1/programs/{programId}/customers/{email}/coupons": operation("post", {
    operationId: "assignCoupon",
    summary: "Assign a coupon",
    description: "Gives the customer the next free code of the pool; a code never goes to two customers.",
    tag: "Coupons",
    parameters: [programId, email, idempotencyKey],
    body: { schema: "CouponRequest", required: true },
    success: { status: 201, description: "Assigned.", schema: "CouponResult" },
    errors: [...CUSTOMER_ERRORS, "coupon_pool_not_found", ...WRITE_ERRORS, "coupon_pool_empty", "coupon_pool_inactive"],
  }),
  "/v1/programs/{programId}/customers/{email}/notifications": operation("post", {
    operationId: "sendPushNotification",
    summary: "Send a push notification",
    description:
      "`suppressed` when the customer turned the category off, else `queued` and delivered to the program's push endpoint as signed JSON.",
    tag: "Notifications",
    parameters: [programId, email, idempotencyKey],
    body: { schema: "NotificationRequest", required: true },
    success: { status: 202, description: "Accepted.", schema: "NotificationResult" },
    errors: [...CUSTOMER_ERRORS, ...WRITE_ERRORS],
  }),
  "/v1/programs/{programId}/customers/{email}/referral": operation("post", {
    operationId: "recordReferral",
    summary: "Record who referred the customer",
    description:
      "Records the owner of `code` as the customer's referrer, before the customer's first earn; the customer's `referral` then holds that code. Their first qualifying earn gives both sides the program's referral points, once (`referral.completed`). Sending the same code again changes nothing.",
    tag: "Customers",
    parameters: [programId, email, idempotencyKey],
    body: { schema: "ReferralRequest", required: true },
    success: { status: 200, description: "The customer, with `referral` set.", schema: "Customer" },
    errors: [
      ...CUSTOMER_ERRORS,
      ...WRITE_ERRORS,
      ["referral_code_unknown", "also a code of another program's customer, or of an erased one"],
      "referral_self",
      "referral_already_recorded",
      "referral_after_first_earn",
    ],
  }),
};
