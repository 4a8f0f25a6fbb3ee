import type { OperationSpec } from "@/lib/api/openapi/operation";
import { customerAttributeName, programId } from "@/lib/api/openapi/parameters";
import { BODY_ERRORS, INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operations of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getCustomerAttribute",
  summary: "Get a customer attribute",
  description: "One customer attribute the program declares.",
  tag: "Segments",
  parameters: [programId, customerAttributeName],
  success: { status: 200, description: "The customer attribute.", schema: "CustomerAttribute" },
  errors: [
    "unauthorized",
    ["not_found", "the program of the path, or no such customer attribute"],
    ["validation_failed", "the name in the path is not a valid name"],
    "rate_limited",
    "internal",
    "service_unavailable",
  ],
};

export const PUT: OperationSpec = {
  operationId: "putCustomerAttribute",
  summary: "Declare a customer attribute",
  description:
    "Declares a customer attribute (number, string, boolean or datetime) or changes its type. The user item of `POST …/integrations/api` sets it under `customAttributes`; the customer's GET shows it there; campaign conditions and segment filters read it as `customer.<name>`. A name of the customer's own fields (tier, balance, memberDays, language, birthdate, utmSource, utmMedium, utmCampaign, lastActivityAt, segment) is 400.",
  tag: "Segments",
  parameters: [programId, customerAttributeName],
  body: { schema: "CustomerAttributeDeclaration", required: true },
  success: { status: 200, description: "The customer attribute as declared.", schema: "CustomerAttribute" },
  errors: [...INTEGRATOR_ERRORS, ...BODY_ERRORS],
};
