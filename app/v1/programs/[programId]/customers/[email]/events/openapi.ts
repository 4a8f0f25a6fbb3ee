import type { OperationSpec } from "@/lib/api/openapi/operation";
import { dryRun, email, idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "sendCustomerEvent",
  summary: "Send a customer event",
  description:
    "An event of a declared type for the customer: checked against its declaration (400 `validation_failed` with the path of each problem), kept in the event log, and run through the active campaigns it triggers. Their effects (points through the ledger, each entry naming the campaign, its version and the event; coupons) apply at once; `skipped` lists the triggered campaigns that did not apply, with the reason. `?dryRun=true` answers the same and stores nothing.",
  tag: "Campaigns",
  parameters: [programId, email, dryRun, idempotencyKey],
  body: { schema: "CustomerEventRequest", required: true },
  success: {
    status: 200,
    description: "The event, the effects applied and the campaigns skipped.",
    schema: "CustomerEventResult",
  },
  errors: [...CUSTOMER_ERRORS, ...WRITE_ERRORS],
};
