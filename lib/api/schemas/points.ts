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
    createdAt: Timestamp,
    expiresAt: Timestamp.nullable(),
  })
  .meta({ id: "Transaction" });

export const BalanceResult = z
  .object({ balance: z.number().int(), transaction: Transaction })
  .meta({ id: "BalanceResult" });

export const TransactionPage = z
  .object({ data: z.array(Transaction), nextCursor: z.string().nullable() })
  .meta({ id: "TransactionPage" });
