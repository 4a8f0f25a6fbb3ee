import "server-only";
import { z } from "zod";
import { rewardNotFound } from "@/lib/errors";
import { decreaseBalance, increaseBalance } from "@/lib/domain/points";
import { canNameCustomer } from "@/lib/domain/customer-lookup";
import { normaliseEmail } from "@/lib/domain/customers";
import { redeemReward } from "@/lib/domain/rewards";
import { changeBalanceInOneStatement, redeemRewardInOneStatement } from "./one-statement";
import { jsonObject, rawJson } from "./json-compose";
import { uuidParam } from "./path-params";
import { PointsChange, PointsIncrease } from "./schemas/points";
import { RedeemRequest } from "./schemas/rewards";
import type { CustomerRequest, WriteOptions } from "./route-factories";

/**
 * The one place for the customer routes that exist twice: increase and decrease balance differ only in the
 * domain function, and redeeming a reward is the same for an integrator (`customers/{email}/…`) and for the
 * customer of a token (`me/…`). Each route file names which one it is.
 */

/**
 * A balance change by the integrator: 200 with the new balance and the ledger entry written. One statement with its
 * idempotency record (`statement`); `run` is the locked path for the rare requests the statement hands over.
 */
export const balanceChange = (
  change: typeof increaseBalance | typeof decreaseBalance,
): WriteOptions<z.output<typeof PointsIncrease>, undefined, string> => {
  const move = (req: CustomerRequest<z.output<typeof PointsIncrease>>) => ({
    programId: req.programId,
    customerId: req.customerId,
    ...req.body,
    source: "api" as const,
    actor: req.caller.actor,
    idempotencyKey: req.idempotencyKey,
  });
  return {
    // Increase may name the order the points were earned with; decrease may not.
    body: change === increaseBalance ? PointsIncrease : PointsChange,
    statementFindsCustomer: true,
    statement: async (req, database, slot) => {
      const email = normaliseEmail(req.params.email ?? "");
      // No customer can have it: `run` looks them up and answers 404.
      if (!canNameCustomer(email)) return null;
      return changeBalanceInOneStatement(database, change.change({ ...move(req), customerId: null, email }), slot);
    },
    run: async (req, tx) => {
      const result = await change(tx, move(req));
      return {
        status: 200,
        rawJson: jsonObject({
          balance: result.balance,
          transaction: rawJson(result.entryJson),
          // An earn that went pending (API.md §4 "Pending points"): no transaction yet.
          ...(result.pendingJson ? { pending: rawJson(result.pendingJson) } : {}),
        }),
      };
    },
  };
};

/**
 * Redeem a reward for the request's customer: spends its cost through the ledger and takes one unit of stock. 201.
 * One statement with its idempotency record (`statement`); `run` is the locked path for the rare requests it hands over.
 */
export const redemption: WriteOptions<z.output<typeof RedeemRequest>, undefined, string> = {
  params: { rewardId: uuidParam(rewardNotFound) },
  body: RedeemRequest,
  bodyOptional: true,
  statement: (req, database, slot) =>
    redeemRewardInOneStatement(
      database,
      {
        programId: req.programId,
        customerId: req.customerId,
        rewardId: req.params.rewardId!,
        actor: req.caller.actor,
        metadata: req.body.metadata,
        idempotencyKey: req.idempotencyKey,
      },
      slot,
    ),
  run: async (req, tx) => {
    const result = await redeemReward(tx, {
      programId: req.programId,
      customerId: req.customerId,
      rewardId: req.params.rewardId!,
      actor: req.caller.actor,
      source: "api",
      metadata: req.body.metadata,
      idempotencyKey: req.idempotencyKey,
    });
    return { status: 201, json: result };
  },
};
