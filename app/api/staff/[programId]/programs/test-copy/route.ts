import { staffWrite } from "@/lib/staff/http";
import { NewProgramForm } from "@/lib/staff/forms/program";
import { createTestCopyAsStaff } from "@/lib/staff/operations/program-settings";

/** Copies this program's configuration into a new test program owned by the caller (an owner); 201 with its id. */
export const POST = staffWrite(createTestCopyAsStaff, { body: NewProgramForm, status: 201, args: (req) => [req.body] });
