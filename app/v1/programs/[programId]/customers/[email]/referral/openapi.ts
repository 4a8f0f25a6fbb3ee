import type { OperationSpec } from "@/lib/api/openapi/operation";
import { email, idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { CUSTOMER_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "recordReferral",
  summary: "Record who referred the customer",
  description:
    "Records the owner of `code` as the customer's referrer, before the customer's first earn; the customer's `referral` then holds that code. Their first qualifying earn gives both sides the program's referral points, once (`referral.completed`). Sending the same code again changes nothing.",
  tag: "Customers",
  parameters: [programId, email, idempotencyKey],
  body: { schema: "ReferralRequest", required: true },
  success: { status: 200, description: "The customer, with `referral` set.", schema: "Customer" },
  errors: [
    ...CUSTOMER_ERRORS,
    ...WRITE_ERRORS,
    ["referral_code_unknown", "also a code of another program's customer, or of an erased one"],
    "referral_self",
    "referral_already_recorded",
    "referral_after_first_earn",
  ],
};
