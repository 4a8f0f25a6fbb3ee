import { staffWrite } from "@/lib/staff/http";
import { SegmentForm } from "@/lib/staff/forms/segments";
import { deleteSegmentAsStaff, updateSegmentAsStaff } from "@/lib/staff/operations/segments";

/** Replaces a segment's name, filter and emitEvents, from the version the page showed (If-Match); 200. */
export const PUT = staffWrite(updateSegmentAsStaff, {
  body: SegmentForm,
  args: (req) => [req.params.segmentId!, req.body, req.version],
});

/** Deletes a segment, from the version the page showed (If-Match); 200. */
export const DELETE = staffWrite(deleteSegmentAsStaff, {
  args: (req) => [req.params.segmentId!, req.version],
});
