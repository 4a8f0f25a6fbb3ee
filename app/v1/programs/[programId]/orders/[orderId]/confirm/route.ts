import { apiWrite } from "@/lib/api/route-factories";
import { jsonObject, rawJson } from "@/lib/api/json-compose";
import { ConfirmOrderRequest, OrderId } from "@/lib/api/schemas/points";
import { orderNotFound } from "@/lib/errors";
import { confirmOrder } from "@/lib/domain/pending";
import { programNow } from "@/lib/domain/clock";

/**
 * Confirm an order (delivery confirmed): its pending points become spendable now (lib/domain/pending.ts). 200.
 * Idempotent: a repeat finds nothing pending and answers the order's pending points as they are. Locked path only.
 */
export const POST = apiWrite({
  params: { orderId: { schema: OrderId, orElse: orderNotFound } },
  body: ConfirmOrderRequest,
  bodyOptional: true,
  run: async (req, tx) => {
    const outcome = await confirmOrder(tx, {
      programId: req.programId,
      orderId: req.params.orderId!,
      now: programNow(req.programId),
    });
    return {
      status: 200,
      rawJson: jsonObject({
        orderId: outcome.orderId,
        pointsMatured: outcome.pointsMatured,
        pending: rawJson(`[${outcome.pending.join(",")}]`),
      }),
    };
  },
});
