import Link from "next/link";
import { dashboardPages } from "@/lib/staff/urls";
import { ClockAdvance } from "./clock/clock-advance";

/**
 * On every page of a test program: it is not a live program, its keys are lk_test_ keys, and its clock stands where
 * the last advance left it (API.md "Test programs"). The clock bar: the clock, a link to what it did, and for roles
 * that may move it (`canAdvance`), "Advance to…" with its dry-run preview; other roles read the clock only.
 */
export function TestProgramBanner({
  programId,
  clockAt,
  maxAt,
  canAdvance,
}: {
  programId: string;
  clockAt: Date;
  /** The latest instant one advance may reach (lib/domain/program-clock.ts MAX_ADVANCE_MONTHS). */
  maxAt: Date;
  canAdvance: boolean;
}) {
  return (
    <section
      aria-label="Test program clock"
      className="flex flex-wrap items-center gap-x-4 gap-y-2 border-b-2 border-amber-500 bg-amber-100 px-4 py-2 text-sm text-amber-950 md:px-8"
    >
      <p role="status" aria-label="Test program" className="min-w-0 flex-1 basis-96">
        <strong className="mr-2 rounded bg-amber-500 px-1.5 py-0.5 font-bold uppercase tracking-wide text-white">
          Test program
        </strong>
        Not live: its API keys start lk_test_, its webhooks say livemode false, and its clock stands at{" "}
        <time dateTime={clockAt.toISOString()} className="font-semibold">
          {clockAt.toISOString().replace("T", " ").slice(0, 16)} UTC
        </time>{" "}
        until it is advanced.
      </p>
      <Link className="font-medium text-amber-950 underline" href={dashboardPages.clock(programId)}>
        Clock timeline
      </Link>
      {canAdvance && <ClockAdvance programId={programId} now={clockAt.toISOString()} max={maxAt.toISOString()} />}
    </section>
  );
}
