import { customerWrite } from "@/lib/api/route-factories";
import { CustomerEventRequest, DryRunQuery } from "@/lib/api/schemas/campaigns";
import { recordCustomerEvent } from "@/lib/domain/campaigns/customer-events";
import { programNow } from "@/lib/domain/clock";

/** A customer event: checked against its declared type, kept, and run through the active campaigns. 200. */
export const POST = customerWrite({
  body: CustomerEventRequest,
  query: DryRunQuery,
  storesNothing: (req) => req.query.dryRun === "true",
  run: async (req, tx) => ({
    status: 200,
    json: await recordCustomerEvent(tx, {
      programId: req.programId,
      customerId: req.customerId,
      type: req.body.type,
      occurredAt: req.body.occurredAt ? new Date(req.body.occurredAt) : null,
      orderId: req.body.orderId ?? null,
      attributes: req.body.attributes,
      actor: req.caller.actor,
      idempotencyKey: req.idempotencyKey,
      dryRun: req.query.dryRun === "true",
      now: programNow(req.programId),
    }),
  }),
});
