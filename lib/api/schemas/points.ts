import { z } from "zod";
import type { PointsMove } from "@/lib/domain/points";
import { LEDGER_SOURCES, LEDGER_TYPES } from "@/lib/domain/vocabulary";
import { Id, MAX_POINTS, Metadata, Timestamp } from "./common";

/** Balances and the ledger (API.md §4): increase/decrease, and the transactions read model. */

export const PointsChange = z
  .strictObject({
    points: z.number().int().min(1).max(MAX_POINTS),
    reason: z.string().trim().max(255).nullable().optional(),
    metadata: Metadata.nullable().optional(),
  })
  .meta({ id: "PointsChange" }) satisfies z.ZodType<Pick<PointsMove, "points" | "reason" | "metadata">>;

/** The integrator's order reference: what `POST /orders/{orderId}/refund` finds the order's points by. */
export const OrderId = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .meta({ examples: ["ORD-10042"] });

/** Increase balance: a points change that may name the order it was earned with. */
export const PointsIncrease = PointsChange.extend({
  orderId: OrderId.nullable()
    .optional()
    .describe("The order the points were earned with (at most 128 characters): a later refund of it reverses them."),
}).meta({ id: "PointsIncrease" }) satisfies z.ZodType<Pick<PointsMove, "points" | "reason" | "metadata" | "orderId">>;

export const Transaction = z
  .object({
    id: Id,
    customerId: Id,
    type: z.enum(LEDGER_TYPES),
    points: z.number().int().describe("Signed: positive adds to the balance, negative takes from it."),
    balanceAfter: z.number().int(),
    reason: z.string().nullable(),
    source: z.enum(LEDGER_SOURCES),
    actor: z.string().meta({ examples: ["api_key:0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a"] }),
    idempotencyKey: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    orderId: z
      .string()
      .nullable()
      .describe("The order the entry was earned with (and, on a reversal, the reversed entry's)."),
    reversesId: Id.nullable().describe(
      "On a `reversal`: the entry it reverses (its metadata holds `requested` and `unrecovered`).",
    ),
    createdAt: Timestamp,
    expiresAt: Timestamp.nullable(),
  })
  .meta({ id: "Transaction" });

/** Points earned but not spendable yet (API.md §4 "Pending points"; lib/domain/pending-rules.ts). */
export const PendingPoints = z
  .object({
    id: Id,
    customerId: Id,
    points: z.number().int().positive(),
    status: z.enum(["pending", "matured", "cancelled"]),
    orderId: z.string().nullable(),
    reason: z.string().nullable(),
    createdAt: Timestamp,
    maturesAt: Timestamp.nullable().describe("When the points become spendable; null: when the order is confirmed."),
    settledAt: Timestamp.nullable().describe("When they matured or were cancelled."),
    transactionId: Id.nullable().describe("Once matured: the `earn` entry that made them spendable."),
  })
  .meta({ id: "PendingPoints" });

/** `POST …/orders/{orderId}/confirm`: no body needed. */
export const ConfirmOrderRequest = z.strictObject({}).meta({ id: "ConfirmOrderRequest" });

export const ConfirmOrderResult = z
  .object({
    orderId: z.string(),
    pointsMatured: z.number().int().describe("Points this call made spendable (0 on a repeat)."),
    pending: z.array(PendingPoints).describe("Every pending-points record of the order, whatever its status."),
  })
  .meta({ id: "ConfirmOrderResult" });

export const BalanceResult = z
  .object({
    balance: z.number().int(),
    transaction: Transaction.nullable().describe("The entry; null when the earn went pending (see `pending`)."),
    pending: PendingPoints.optional().describe(
      "An earn of a program with pending points: the points, not yet in the balance, and when they mature.",
    ),
  })
  .meta({ id: "BalanceResult" });

export const TransactionPage = z
  .object({ data: z.array(Transaction), nextCursor: z.string().nullable() })
  .meta({ id: "TransactionPage" });
