import { staffWrite } from "@/lib/staff/http";
import { NewProgramForm } from "@/lib/staff/forms/program";
import { createProgramAsStaff } from "@/lib/staff/operations/program-settings";

/** Creates a program owned by the caller (an owner of this program); 201 with its id. */
export const POST = staffWrite(createProgramAsStaff, { body: NewProgramForm, status: 201, args: (req) => [req.body] });
