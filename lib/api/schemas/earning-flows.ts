import { z } from "zod";
import { MAX_FLOW_PARAMS } from "@/lib/domain/flow-params";
import { CAP_REASONS, FLOW_RECURRENCES } from "@/lib/domain/vocabulary";
import { Email } from "./common";
import { OrderId, PendingPoints, Transaction } from "./points";

/** Running an earning flow for a customer (API.md §3, §4). */

/** The flow's declared parameters, by name: numbers only, no nesting; the flow checks names and bounds. */
const RunParams = z
  .record(z.string().max(64), z.number("must be a number"))
  .refine((p) => Object.keys(p).length <= MAX_FLOW_PARAMS, `must have at most ${MAX_FLOW_PARAMS} keys`)
  .optional()
  .describe(
    "The values of the parameters the flow declares (set when the flow is created in the dashboard or CLI): each a number within " +
      "its declared bounds, required ones present. An undeclared name, a non-number or a nested value is 400 `validation_failed` " +
      "naming `params.<name>`; only declared values are stored in the ledger entry's metadata.",
  )
  .meta({ maxProperties: MAX_FLOW_PARAMS, examples: [{ amount: 42.5 }] });

export const EarningFlowRun = z
  .strictObject({
    params: RunParams,
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
    pending: PendingPoints.nullable().describe(
      "The run's points went pending (the flow's pending override, else the program's setting): `transaction` is " +
        "null and `balance` unchanged until they mature. Null: spendable at once.",
    ),
  })
  .meta({ id: "EarningFlowResult" });

/** The JeriCommerce alias of a run (API.md §3): the customer in the body. */
export const EarningFlowExecute = z
  .strictObject({ customerEmail: Email, params: RunParams })
  .meta({ id: "EarningFlowExecute" });

export const EarningFlowExecution = z
  .object({
    pointsAwarded: z.number().int().describe("Points this run earned (0 when a cap or `once` stopped it)."),
    remainingExecutions: z
      .number()
      .int()
      .nullable()
      .describe(
        "How many more runs would still earn points for this customer now (0: none until a cap resets); null when " +
          "the flow has no limit, or when its points depend on the run's params.",
      ),
    recurrence: z
      .enum(FLOW_RECURRENCES)
      .describe("`once` (one run per customer), `daily` (a cap per day, reset at 00:00 UTC) or `unlimited`."),
  })
  .meta({ id: "EarningFlowExecution" });
