import type { OperationSpec } from "@/lib/api/openapi/operation";
import { programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getProgramClock",
  summary: "Program clock",
  description:
    "The program's business time: real time for a live program; for a test program, its stored clock, which stands " +
    "still until `POST …/clock/advance` moves it. Increases, redemptions and every other write to a test program happen at this time.",
  tag: "Test programs",
  parameters: [programId],
  success: { status: 200, description: "The program's now and mode.", schema: "ProgramClock" },
  errors: INTEGRATOR_ERRORS,
};
