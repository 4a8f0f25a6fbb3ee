import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "sendPushNotification",
  summary: "Send a push notification",
  description:
    "`suppressed` when the customer turned the category off, else `queued` and delivered to the program's push endpoint as signed JSON.",
  tag: "Notifications",
  parameters: [programId, email, idempotencyKey],
  body: { schema: "NotificationRequest", required: true },
  success: { status: 202, description: "Accepted.", schema: "NotificationResult" },
  errors: [...CUSTOMER_ERRORS, ...WRITE_ERRORS],
};
