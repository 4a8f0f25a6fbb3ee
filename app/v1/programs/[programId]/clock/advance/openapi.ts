import type { OperationSpec } from "@/lib/api/openapi/operation";
import { idempotencyKey, programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS, WRITE_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST: OperationSpec = {
  operationId: "advanceProgramClock",
  summary: "Advance a test program's clock",
  description:
    "Moves a test program's clock forward to `to` (at most two years per call) and runs, in time order, every timer due " +
    "on the way, each at its own instant as the program's now: points expiry, then tier period closing, then lifecycle campaigns (the order of " +
    "timers due at one instant, the same as the scheduler's on a live program). Answers what was applied and the " +
    "timeline (its first `timelineLimit` entries). With `dryRun` the same report comes back and nothing is stored. " +
    "Without an Idempotency-Key each due instant is its own transaction: an advance cut short leaves the program as of " +
    "its last whole step, and repeating the call finishes it and applies nothing twice. With a key the advance is one " +
    "transaction (all or nothing, within the write time limit) and a repeat with the key replays its answer.",
  tag: "Test programs",
  parameters: [programId, idempotencyKey],
  body: { schema: "AdvanceRequest", required: true },
  success: {
    status: 200,
    description: "What the advance applied (or, with dryRun, would apply).",
    schema: "AdvanceReport",
  },
  errors: [
    ...INTEGRATOR_ERRORS,
    ["program_not_test", "the program is live: its clock is real time"],
    ...WRITE_ERRORS,
    ["validation_failed", "`to` before the clock (forward only), or more than two years after it"],
  ],
};
