import { staffWrite } from "@/lib/staff/http";
import { SegmentForm } from "@/lib/staff/forms/segments";
import { createSegmentAsStaff } from "@/lib/staff/operations/segments";

/** Creates a segment (who is in it now is its baseline); 201. */
export const POST = staffWrite(createSegmentAsStaff, {
  body: SegmentForm,
  status: 201,
  args: (req) => [req.body],
});
