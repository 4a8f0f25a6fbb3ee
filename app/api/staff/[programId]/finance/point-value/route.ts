import { staffWrite } from "@/lib/staff/http";
import { PointValueForm } from "@/lib/staff/forms/finance";
import { setPointValueAsStaff } from "@/lib/staff/operations/finance";

/** Sets (or clears) the program's currency and value per point; 200 with them. */
export const PATCH = staffWrite(setPointValueAsStaff, { body: PointValueForm, args: (req) => [req.body] });
