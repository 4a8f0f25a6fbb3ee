import { apiWrite } from "@/lib/api/route-factories";
import { jsonObject, rawJson } from "@/lib/api/json-compose";
import { OrderId } from "@/lib/api/schemas/points";
import { RefundRequest } from "@/lib/api/schemas/reversals";
import { orderNotFound } from "@/lib/errors";
import { refundOrder } from "@/lib/domain/refunds";

/**
 * Refund an order: reverses the points it earned, across every entry of that order, in full or in proportion to
 * amount/total; partial refunds add up to at most the order. 200. Locked path only.
 */
export const POST = apiWrite({
  params: { orderId: { schema: OrderId, orElse: orderNotFound } },
  body: RefundRequest,
  run: async (req, tx) => {
    const outcome = await refundOrder(tx, {
      programId: req.programId,
      orderId: req.params.orderId!,
      amount: req.body.amount,
      total: req.body.total,
      reason: req.body.reason,
      source: "api",
      actor: req.caller.actor,
      idempotencyKey: req.idempotencyKey,
    });
    const { transactions, ...rest } = outcome;
    return {
      status: 200,
      rawJson: jsonObject({ ...rest, transactions: rawJson(`[${transactions.join(",")}]`) }),
    };
  },
});
