import { z } from "zod";
import { Id, MAX_POINTS } from "./common";
import { Transaction } from "./points";

/** Reversals of ledger entries and refunds of orders (lib/domain/reversals.ts, refunds.ts). */

const Reason = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .describe("Why: kept on the reversal entries (shown in the points history and the dashboard).");

export const ReversalRequest = z
  .strictObject({
    points: z
      .number()
      .int()
      .min(1)
      .max(MAX_POINTS)
      .nullable()
      .optional()
      .describe("Points to reverse; absent: everything left to reverse of the entry."),
    reason: Reason,
  })
  .meta({ id: "ReversalRequest", examples: [{ points: 100, reason: "Item returned" }] });

export const ReversalResult = z
  .object({
    balance: z.number().int(),
    transaction: Transaction.describe("The `reversal` entry written (`reversesId` names the entry reversed)."),
    unrecovered: z
      .number()
      .int()
      .describe(
        "Points of the request the customer had already spent: not taken back (the balance never goes below 0).",
      ),
  })
  .meta({ id: "ReversalResult" });

const Money = z.number().positive().max(1e12);

export const RefundRequest = z
  .strictObject({
    amount: Money.nullable().optional().describe("The refunded amount; with `total`. Absent: the whole order."),
    total: Money.nullable().optional().describe("The order's total, in the same currency as `amount`."),
    reason: Reason,
  })
  .superRefine((body, ctx) => {
    if ((body.amount == null) !== (body.total == null))
      ctx.addIssue({
        code: "custom",
        path: [body.amount == null ? "amount" : "total"],
        message: "give amount and total together",
      });
    else if (body.amount != null && body.total != null && body.amount > body.total)
      ctx.addIssue({ code: "custom", path: ["amount"], message: "must not exceed total" });
  })
  .meta({ id: "RefundRequest", examples: [{ amount: 20, total: 80, reason: "One item returned" }] });

export const RefundResult = z
  .object({
    refundId: Id,
    orderId: z.string(),
    orderPoints: z.number().int().describe("The points the order earned, over all its entries."),
    refundedShare: z.number().describe("The order's refunded share after this refund: Σ amount/total, at most 1."),
    pointsReversed: z
      .number()
      .int()
      .describe("Points this refund reversed (0 when earlier refunds already covered it)."),
    totalReversed: z.number().int().describe("Points reversed of the order so far, this refund included."),
    unrecovered: z.number().int().describe("Points of this refund the customers had already spent: not taken back."),
    pendingCancelled: z
      .number()
      .int()
      .describe("Pending points of the order this refund cancelled before they matured (never in the balance)."),
    transactions: z.array(Transaction).describe("The `reversal` entries this refund wrote."),
  })
  .meta({ id: "RefundResult" });
