import "@/lib/zod-browser";
import { z } from "zod";
import { SegmentPreviewRequest, SegmentRequest } from "@/lib/api/schemas/segments";

/**
 * Segments from the dashboard: the /v1 bodies themselves (a segment accepted by one is accepted by the other), the
 * filter checked by path on the server against the program's declarations (lib/domain/segments/filter.ts).
 */

export const SegmentForm = SegmentRequest;
export type SegmentForm = z.infer<typeof SegmentForm>;

/** The builder's live count: the filter as it stands, nothing stored. */
export const SegmentPreviewForm = SegmentPreviewRequest;
export type SegmentPreviewForm = z.infer<typeof SegmentPreviewForm>;
