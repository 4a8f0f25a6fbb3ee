import type { OperationSpec } from "@/lib/api/openapi/operation";
import { eventType, programId } from "@/lib/api/openapi/parameters";
import { BODY_ERRORS, INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operations of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getEventType",
  summary: "Get an event type",
  description: "One event type the program declares, with its attributes.",
  tag: "Campaigns",
  parameters: [programId, eventType],
  success: { status: 200, description: "The event type.", schema: "EventType" },
  errors: [
    "unauthorized",
    ["not_found", "the program of the path, or no such event type"],
    ["validation_failed", "the type in the path is not a valid name"],
    "rate_limited",
    "internal",
    "service_unavailable",
  ],
};

export const PUT: OperationSpec = {
  operationId: "putEventType",
  summary: "Declare an event type",
  description:
    "Declares the attributes of an event type (number, string, boolean, datetime, or items: an array of objects whose fields are declared the same way), or replaces the declaration. Events of the type are checked against it; campaigns are checked against it when created, changed and activated.",
  tag: "Campaigns",
  parameters: [programId, eventType],
  body: { schema: "EventTypeDeclaration", required: true },
  success: { status: 200, description: "The event type as declared.", schema: "EventType" },
  errors: [...INTEGRATOR_ERRORS, ...BODY_ERRORS],
};
