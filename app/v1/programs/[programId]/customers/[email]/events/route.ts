import { customerWrite, type CustomerRequest } from "@/lib/api/route-factories";
import { recordCustomerEventInOneStatement } from "@/lib/api/one-statement";
import { CustomerEventRequest, DryRunQuery } from "@/lib/api/schemas/campaigns";
import { recordCustomerEvent } from "@/lib/domain/campaigns/customer-events";
import { canNameCustomer } from "@/lib/domain/customer-lookup";
import { normaliseEmail } from "@/lib/domain/customers";
import { programNow } from "@/lib/domain/clock";
import type { z } from "zod";

const eventOf = (req: CustomerRequest<z.output<typeof CustomerEventRequest>, z.output<typeof DryRunQuery>>) => ({
  programId: req.programId,
  type: req.body.type,
  occurredAt: req.body.occurredAt ? new Date(req.body.occurredAt) : null,
  orderId: req.body.orderId ?? null,
  attributes: req.body.attributes,
  actor: req.caller.actor,
  idempotencyKey: req.idempotencyKey,
  dryRun: req.query.dryRun === "true",
  now: programNow(req.programId),
});

/**
 * A customer event: checked against its declared type, kept, and run through the active campaigns, in one statement
 * after one read (the locked path for a dry run, a coupon, a race or what is due). 200.
 */
export const POST = customerWrite({
  body: CustomerEventRequest,
  query: DryRunQuery,
  storesNothing: (req) => req.query.dryRun === "true",
  statementFindsCustomer: true,
  statement: async (req, database, slot) => {
    const email = normaliseEmail(req.params.email ?? "");
    // No customer can have it: `run` looks them up and answers 404.
    if (!canNameCustomer(email)) return null;
    return recordCustomerEventInOneStatement(database, { ...eventOf(req), email }, slot);
  },
  run: async (req, tx) => ({
    status: 200,
    json: await recordCustomerEvent(tx, { ...eventOf(req), customerId: req.customerId }),
  }),
});
