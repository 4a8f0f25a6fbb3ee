// An owner's setting: staff need a second factor to open the program (lib/staff/operations/staff-accounts.ts).
import { staffWrite } from "@/lib/staff/http";
import { SecondFactorSettingForm } from "@/lib/staff/forms/staff";
import { setSecondFactorRequiredAsStaff } from "@/lib/staff/operations/staff-accounts";

export const PUT = staffWrite(setSecondFactorRequiredAsStaff, {
  body: SecondFactorSettingForm,
  args: (req) => [req.body],
});
