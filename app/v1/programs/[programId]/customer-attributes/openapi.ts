import type { OperationSpec } from "@/lib/api/openapi/operation";
import { programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "listCustomerAttributes",
  summary: "Customer attributes",
  description: "The customer attributes the program declares, by name.",
  tag: "Segments",
  parameters: [programId],
  success: { status: 200, description: "The declared customer attributes.", schema: "CustomerAttributeList" },
  errors: INTEGRATOR_ERRORS,
};
