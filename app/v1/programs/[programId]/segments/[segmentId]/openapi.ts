import type { OperationSpec } from "@/lib/api/openapi/operation";
import { programId, segmentId } from "@/lib/api/openapi/parameters";
import { BODY_ERRORS, INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operations of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getSegment",
  summary: "Get a segment",
  description: "One segment of the program.",
  tag: "Segments",
  parameters: [programId, segmentId],
  success: { status: 200, description: "The segment.", schema: "Segment" },
  errors: INTEGRATOR_ERRORS,
};

export const PUT: OperationSpec = {
  operationId: "updateSegment",
  summary: "Replace a segment",
  description:
    "Replaces the segment's name, filter and emitEvents. A new filter is recomputed at once: the customers it moves in or out get `segment.entered` / `segment.left` (with emitEvents).",
  tag: "Segments",
  parameters: [programId, segmentId],
  body: { schema: "SegmentRequest", required: true },
  success: { status: 200, description: "The segment.", schema: "Segment" },
  errors: [...INTEGRATOR_ERRORS, ...BODY_ERRORS, ["conflict", "another segment has this name"]],
};

export const DELETE: OperationSpec = {
  operationId: "deleteSegment",
  summary: "Delete a segment",
  description:
    "Deletes the segment and its membership. A campaign condition naming it by id or name is then false for `in`.",
  tag: "Segments",
  parameters: [programId, segmentId],
  success: { status: 204, description: "Deleted. No body." },
  errors: INTEGRATOR_ERRORS,
};
