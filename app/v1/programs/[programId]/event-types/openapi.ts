import type { OperationSpec } from "@/lib/api/openapi/operation";
import { programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "listEventTypes",
  summary: "Event types",
  description: "The event types the program declares, by name.",
  tag: "Campaigns",
  parameters: [programId],
  success: { status: 200, description: "The declared event types.", schema: "EventTypeList" },
  errors: INTEGRATOR_ERRORS,
};
