import { customerWrite } from "@/lib/api/route-factories";
import { uuidParam } from "@/lib/api/path-params";
import { jsonObject, rawJson } from "@/lib/api/json-compose";
import { ReversalRequest } from "@/lib/api/schemas/reversals";
import { transactionNotFound } from "@/lib/errors";
import { reverseEntry } from "@/lib/domain/reversals";

/** Reverse (part of) a ledger entry of the customer: a `reversal` entry linked to it. 200. Locked path only. */
export const POST = customerWrite({
  params: {
    transactionId: uuidParam(transactionNotFound),
  },
  body: ReversalRequest,
  run: async (req, tx) => {
    const outcome = await reverseEntry(tx, {
      programId: req.programId,
      customerId: req.customerId,
      transactionId: req.params.transactionId!,
      points: req.body.points,
      reason: req.body.reason,
      source: "api",
      actor: req.caller.actor,
      idempotencyKey: req.idempotencyKey,
    });
    return {
      status: 200,
      rawJson: jsonObject({
        balance: outcome.balance,
        transaction: rawJson(outcome.entryJson),
        unrecovered: outcome.unrecovered,
      }),
    };
  },
});
