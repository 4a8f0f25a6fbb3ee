import { staffWrite } from "@/lib/staff/http";
import { ProgramSettingsForm } from "@/lib/staff/forms/program";
import { updateProgramSettingsAsStaff } from "@/lib/staff/operations/program-settings";

/** Saves the program's settings; 200 with them. */
export const PATCH = staffWrite(updateProgramSettingsAsStaff, {
  body: ProgramSettingsForm,
  args: (req) => [req.body, req.version],
});
