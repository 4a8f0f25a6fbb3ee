import { staffWrite } from "@/lib/staff/http";
import { EventTypeForm } from "@/lib/staff/forms/campaigns";
import { putEventTypeAsStaff } from "@/lib/staff/operations/campaigns";

/** Declares an event type or redeclares it (campaign versions keep what they were checked with); 200. */
export const PUT = staffWrite(putEventTypeAsStaff, {
  body: EventTypeForm,
  args: (req) => [req.body],
});
