import { staffWrite } from "@/lib/staff/http";
import { PushEndpointForm } from "@/lib/staff/forms/webhooks";
import { setPushEndpointAsStaff } from "@/lib/staff/operations/webhooks";

/** Sets (or clears) the program's push endpoint; 200 with its new signing secret, shown this once. */
export const PUT = staffWrite(setPushEndpointAsStaff, {
  body: PushEndpointForm,
  args: (req) => [req.body, req.version],
});
