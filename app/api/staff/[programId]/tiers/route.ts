import { staffWrite } from "@/lib/staff/http";
import { TierForm } from "@/lib/staff/forms/tiers";
import { createTierAsStaff } from "@/lib/staff/operations/catalogue";

/** Creates a tier; 201. */
export const POST = staffWrite(createTierAsStaff, { body: TierForm, status: 201, args: (req) => [req.body] });
