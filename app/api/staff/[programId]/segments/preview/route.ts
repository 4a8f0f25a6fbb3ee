import { staffWrite } from "@/lib/staff/http";
import { SegmentPreviewForm } from "@/lib/staff/forms/segments";
import { previewSegmentAsStaff } from "@/lib/staff/operations/segments";

/** The builder's live count: how many customers a filter selects now and the first 20, nothing stored; 200. */
export const POST = staffWrite(previewSegmentAsStaff, {
  body: SegmentPreviewForm,
  args: (req) => [req.body],
});
