import { staffWrite } from "@/lib/staff/http";
import { ReferralSettingsPatch } from "@/lib/staff/forms/program";
import { updateReferralSettingsAsStaff } from "@/lib/staff/operations/referrals";

/** Saves the program's referral settings; 200 with them. */
export const PATCH = staffWrite(updateReferralSettingsAsStaff, {
  body: ReferralSettingsPatch,
  args: (req) => [req.body, req.version],
});
