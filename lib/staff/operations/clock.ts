import "server-only";
import { advanceByRequest, lockProgramClock, recordClockAdvance } from "@/lib/domain/clock-advances";
import { advanceClockInTransaction, type AdvanceReport } from "@/lib/domain/program-clock";
import { audited } from "../audit";
import { staffOperation } from "../authz";
import type { ClockAdvanceForm } from "../forms/clock";

/**
 * The advance's transaction: as long as an advance step may take (a year of a large program takes minutes, as the
 * bench's `clock` row measures), instead of the 60 s of the other staff writes.
 */
export const ADVANCE_TRANSACTION = { maxWait: 10_000, timeout: 600_000 };

/** The answer to a dashboard advance: the stored advance's id and counts (its timeline is on the clock page). */
export interface AdvanceApplied {
  advanceId: string;
  /** This submit had already been applied: its advance is answered again and nothing more was done. */
  replayed: boolean;
  from: string;
  to: string;
  applied: AdvanceReport["applied"];
  steps: number;
  timelineTotal: number;
}

/**
 * A manager or owner moves a test program's clock from the dashboard. The whole advance runs in this write's one
 * transaction (lib/domain/program-clock.ts `advanceClockInTransaction`) with its stored report and its audit row, so
 * it is all or nothing: cut short, nothing of it stays and the clock has not moved. The program row is locked
 * first, so a second submit of the same request (`requestId`: a double click, a retried request) waits for the first
 * and answers its advance instead of running another; a live program is refused (409 `program_not_test`).
 */
export const advanceClockAsStaff = staffOperation(
  "clock.advance",
  async (tx, staff, input: ClockAdvanceForm): Promise<AdvanceApplied> => {
    await lockProgramClock(tx, staff.programId);
    const done = await advanceByRequest(tx, staff.programId, input.requestId);
    if (done)
      return {
        advanceId: done.id,
        replayed: true,
        from: done.fromAt.toISOString(),
        to: done.toAt.toISOString(),
        applied: done.applied as unknown as AdvanceReport["applied"],
        steps: done.steps,
        timelineTotal: done.timelineTotal,
      };
    const report = await advanceClockInTransaction(tx, staff.programId, new Date(input.to));
    const advanceId = await recordClockAdvance(tx, staff.programId, report, {
      source: "dashboard",
      staffId: staff.staffId,
      staffEmail: staff.email,
      requestId: input.requestId,
    });
    const counts = { applied: report.applied, steps: report.steps, timelineTotal: report.timelineTotal };
    await audited(
      tx,
      staff,
      "clock.advance",
      { type: "program", id: staff.programId },
      { clockAt: report.from },
      { clockAt: report.to, advanceId, ...counts },
    );
    return { advanceId, replayed: false, from: report.from, to: report.to, ...counts };
  },
);
