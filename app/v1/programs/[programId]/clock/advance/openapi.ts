import type { OperationSpec } from "@/lib/api/openapi/operation";
import { programId } from "@/lib/api/openapi/parameters";
import { BODY_ERRORS, INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "advanceProgramClock",
  summary: "Advance a test program's clock",
  description:
    "Moves a test program's clock forward to `to` (at most two years per call) and runs, in time order, every timer due " +
    "on the way, each at its own instant as the program's now: points expiry, then tier period closing (the order of " +
    "timers due at one instant, the same as the scheduler's on a live program). Answers what was applied and the " +
    "timeline (its first `timelineLimit` entries). With `dryRun` the same report comes back and nothing is stored. " +
    "An advance cut short leaves the program as of its last whole step; repeating the call finishes it and applies " +
    "nothing twice (no Idempotency-Key is needed).",
  tag: "Test programs",
  parameters: [programId],
  body: { schema: "AdvanceRequest", required: true },
  success: {
    status: 200,
    description: "What the advance applied (or, with dryRun, would apply).",
    schema: "AdvanceReport",
  },
  errors: [
    ...INTEGRATOR_ERRORS,
    ["program_not_test", "the program is live: its clock is real time"],
    ...BODY_ERRORS,
    ["validation_failed", "`to` before the clock (forward only), or more than two years after it"],
  ],
};
