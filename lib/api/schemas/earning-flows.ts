import { z } from "zod";
import { MAX_FLOW_PARAMS } from "@/lib/domain/flow-params";
import { CAP_REASONS } from "@/lib/domain/vocabulary";
import { OrderId, Transaction } from "./points";

/** Running an earning flow for a customer (API.md §3, §4). */

/** The flow's declared parameters, by name: numbers only, no nesting; the flow checks names and bounds. */
export const EarningFlowRun = z
  .strictObject({
    params: z
      .record(z.string().max(64), z.number("must be a number"))
      .refine((p) => Object.keys(p).length <= MAX_FLOW_PARAMS, `must have at most ${MAX_FLOW_PARAMS} keys`)
      .optional()
      .describe(
        "The values of the parameters the flow declares (set when the flow is created in the dashboard or CLI): each a number within " +
          "its declared bounds, required ones present. An undeclared name, a non-number or a nested value is 400 `validation_failed` " +
          "naming `params.<name>`; only declared values are stored in the ledger entry's metadata.",
      )
      .meta({ maxProperties: MAX_FLOW_PARAMS, examples: [{ amount: 42.5 }] }),
    orderId: OrderId.nullable()
      .optional()
      .describe("The order this run earned with (at most 128 characters): a later refund of it reverses the points."),
  })
  .meta({ id: "EarningFlowRun" });

export const EarningFlowResult = z
  .object({
    pointsEarned: z.number().int(),
    balance: z.number().int(),
    transaction: Transaction.nullable(),
    capped: z.enum(CAP_REASONS).nullable().describe("Which cap limited this run, if any."),
  })
  .meta({ id: "EarningFlowResult" });
