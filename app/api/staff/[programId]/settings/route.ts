import { staffWrite } from "@/lib/staff/http";
import { ProgramSettingsPatch } from "@/lib/staff/forms/program";
import { updateProgramSettingsAsStaff } from "@/lib/staff/operations/program-settings";

/** Saves the program's settings; 200 with them. */
export const PATCH = staffWrite(updateProgramSettingsAsStaff, {
  body: ProgramSettingsPatch,
  args: (req) => [req.body, req.version],
});
