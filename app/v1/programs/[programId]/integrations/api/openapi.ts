import type { OperationSpec } from "@/lib/api/openapi/operation";
import { idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { BODY_ERRORS, INTEGRATOR_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operations of ./route.ts, by the methods it exports (collected by lib/api/openapi/paths.ts). */

const BATCH_ERRORS = [
  ["unsupported_feature", "every problem is a `feature` this service does not support"],
  ["validation_failed", "every problem of every item, by path (`[3].payload.phone`)"],
] as const;

export const POST: OperationSpec = {
  operationId: "createOrUpdateResources",
  summary: "Create/Update resources",
  description:
    "Creates or updates customers. The batch is validated whole and applied atomically: all items or none. " +
    "`user` items (or `users`, JeriCommerce's name) create or update customers; `loyalty` items set an existing " +
    'customer\'s balance (through one `adjust` ledger entry of the difference, reason "opening balance (migration)"; ' +
    "none when it is already that balance), memberSince and tier (by name), as a program moving from JeriCommerce " +
    "needs. User items apply first, so one batch can create customers and set their loyalty. A batch of user items " +
    "without renames is one statement; one with loyalty items takes the ledger's locked path.",
  tag: "Integrations",
  parameters: [programId, idempotencyKey],
  body: { schema: "IntegrationBatch", required: true },
  success: { status: 201, description: "Applied. No body." },
  errors: [
    ...INTEGRATOR_ERRORS,
    ...WRITE_ERRORS,
    ...BATCH_ERRORS,
    ["conflict", "an e-mail, externalCustomerId or loyaltyCustomerId already belongs to another customer"],
    "referral_code_unknown",
    "referral_self",
    "referral_already_recorded",
    "referral_after_first_earn",
    ["unknown_tier", "a `loyalty` item's tierStatus, by path (`[3].payload.tierStatus`)"],
    ["customer_not_found", "a `loyalty` item names no live customer (an erased one included), by path (`[3].email`)"],
  ],
};

// DELETE ignores Idempotency-Key (erasing twice is erasing once): neither the header nor its 409 apply.
export const DELETE: OperationSpec = {
  operationId: "deleteResources",
  summary: "Delete resources",
  description:
    "Erases the customers' personal data and makes them absent to every read; their ledger stays (anonymised) so program totals stay true. Unknown e-mails are ignored. Repeating it changes nothing.",
  tag: "Integrations",
  parameters: [programId],
  body: { schema: "DeleteBatch", required: true },
  success: { status: 204, description: "Erased. No body." },
  errors: [...INTEGRATOR_ERRORS, ...BODY_ERRORS, ...BATCH_ERRORS],
};
