import { apiWrite } from "@/lib/api/handler";
import { apiActor, customerOf } from "@/lib/api/customer-routes";
import { PointsChange } from "@/lib/api/schemas/points";
import { increaseBalance } from "@/lib/domain/points";

/** Increase balance: an `earn` entry, counted towards tiers. */
export const POST = apiWrite({
  body: PointsChange,
  run: async (req, tx) => {
    const customerId = await customerOf(req, tx);
    const result = await increaseBalance(tx, {
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
