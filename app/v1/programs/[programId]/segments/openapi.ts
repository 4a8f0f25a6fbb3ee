import type { OperationSpec } from "@/lib/api/openapi/operation";
import { idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operations of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "listSegments",
  summary: "Segments",
  description: "The program's segments, by name.",
  tag: "Segments",
  parameters: [programId],
  success: { status: 200, description: "The segments.", schema: "SegmentList" },
  errors: INTEGRATOR_ERRORS,
};

export const POST: OperationSpec = {
  operationId: "createSegment",
  summary: "Create a segment",
  description:
    "A named filter over the program's customers. The filter is checked against the program's declarations (every problem by path, e.g. `filter.all[1].attr`). Who is in it at creation is its baseline: no `segment.entered` for them.",
  tag: "Segments",
  parameters: [programId, idempotencyKey],
  body: { schema: "SegmentRequest", required: true },
  success: { status: 201, description: "The segment.", schema: "Segment" },
  errors: [
    ...INTEGRATOR_ERRORS,
    ...WRITE_ERRORS,
    ["conflict", "another segment has this name, or the program has 100"],
  ],
};
