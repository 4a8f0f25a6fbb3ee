import { z } from "zod";
import { db } from "@/lib/db/client";

import { normaliseEmail } from "@/lib/domain/customers";
import { resolveCustomerId } from "@/lib/domain/customer-lookup";
import { refundOrder } from "@/lib/domain/refunds";
import { reverseEntry } from "@/lib/domain/reversals";
import { Int, Uuid, type Command } from "./command";

/**
 * CLI corrections (lib/domain/reversals.ts and refunds.ts, the same functions as the API and the dashboard): reverse a ledger
 * entry, refund an order. Written to the ledger with source `system` and actor `cli`.
 */
const Reason = z.string().trim().min(1).max(255);
const Money = z.coerce.number().positive().max(1e12);

export const correctionCommands: Record<string, Command> = {
  reverse: {
    usage: "--program ID --email E --transaction TX_ID [--points N] --reason R   (all that is left without --points)",
    flags: z.strictObject({
      program: Uuid,
      email: z.string().min(1),
      transaction: z.string().min(1),
      points: Int(1, 1_000_000_000).optional(),
      reason: Reason,
    }),
    run: async (f: { program: string; email: string; transaction: string; points?: number; reason: string }) => {
      const database = await db();
      const customerId = await resolveCustomerId(database, f.program, normaliseEmail(f.email));
      const outcome = await database.$transaction((tx) =>
        reverseEntry(tx, {
          programId: f.program,
          customerId,
          transactionId: f.transaction,
          points: f.points,
          reason: f.reason,
          source: "system",
          actor: "cli",
        }),
      );
      return {
        balance: outcome.balance,
        unrecovered: outcome.unrecovered,
        tierPoints: outcome.tierPoints,
        transaction: JSON.parse(outcome.entryJson),
      };
    },
  },
  refund: {
    usage: "--program ID --order ORDER_ID [--amount A --total T] --reason R   (the whole order without --amount)",
    flags: z.strictObject({
      program: Uuid,
      order: z.string().trim().min(1).max(128),
      amount: Money.optional(),
      total: Money.optional(),
      reason: Reason,
    }),
    run: async (f: { program: string; order: string; amount?: number; total?: number; reason: string }) => {
      const outcome = await (
        await db()
      ).$transaction((tx) =>
        refundOrder(tx, {
          programId: f.program,
          orderId: f.order,
          amount: f.amount,
          total: f.total,
          reason: f.reason,
          source: "system",
          actor: "cli",
        }),
      );
      const { transactions, ...rest } = outcome;
      return { ...rest, transactions: transactions.map((t) => JSON.parse(t)) };
    },
  },
};
