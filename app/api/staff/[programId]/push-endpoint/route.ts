import { staffWrite } from "@/lib/staff/http";
import { PushEndpointForm } from "@/lib/staff/forms";
import { setPushEndpointAsStaff } from "@/lib/staff/operations";

export const PUT = staffWrite({
  permission: "program.manage",
  body: PushEndpointForm,
  run: (req, tx) => setPushEndpointAsStaff(tx, req.staff, req.body),
});
