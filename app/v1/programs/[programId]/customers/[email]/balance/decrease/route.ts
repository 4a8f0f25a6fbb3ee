import { apiWrite } from "@/lib/api/handler";
import { apiActor, customerOf } from "@/lib/api/customer-routes";
import { PointsChange } from "@/lib/api/schemas/points";
import { decreaseBalance } from "@/lib/domain/points";

/** Decrease balance: a `spend` entry; 409 `insufficient_balance` rather than going below zero. */
export const POST = apiWrite({
  body: PointsChange,
  run: async (req, tx) => {
    const customerId = await customerOf(req, tx);
    const result = await decreaseBalance(tx, {
      programId: req.programId,
      customerId,
      ...req.body,
      source: "api",
      actor: apiActor(req),
      idempotencyKey: req.idempotencyKey,
    });
    return { status: 200, rawJson: `{"balance":${result.balance},"transaction":${result.entryJson}}` };
  },
});
