import type { OperationSpec } from "@/lib/api/openapi/operation";
import { idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "previewSegment",
  summary: "Preview a segment",
  description:
    "How many customers a filter selects at the program clock's now, and the first 20 by customer id. It runs the very query a segment's members are listed with, so the count equals the members listed at the same instant. Stores nothing.",
  tag: "Segments",
  parameters: [programId, idempotencyKey],
  body: { schema: "SegmentPreviewRequest", required: true },
  success: { status: 200, description: "The count and a sample.", schema: "SegmentPreview" },
  errors: [...INTEGRATOR_ERRORS, ...WRITE_ERRORS],
};
