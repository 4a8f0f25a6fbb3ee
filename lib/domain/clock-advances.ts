import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Db, Tx } from "@/lib/db/types";
import { query, sql } from "@/lib/db/sql";
import { advanceClock, advanceClockInTransaction, type AdvanceReport } from "./program-clock";

/**
 * What a test program's clock did: the one place that stores an applied advance's report (`ClockAdvance`, one row
 * per advance, from the dashboard or the API; a dry run is never stored) and finds a dashboard submit's advance again.
 *
 * Why a table of its own rather than the audit log: the audit log is read by owners and managers only, while every
 * member of a test program reads what its clock did; an advance's timeline is up to TIMELINE_LIMIT entries, which
 * the audit page and its CSV export would carry whole; and the dashboard pages through one advance's timeline and
 * charts every advance's by month, which a table with the timeline as one JSON column answers in one query. The
 * audit log keeps its own row of a dashboard advance (who, the clock before → after, the counts, this row's id).
 */

export interface AdvanceAuthor {
  source: "dashboard" | "api";
  staffId?: string;
  staffEmail?: string;
  /** The dashboard submit (lib/staff/operations/clock.ts): a repeat of it finds this advance. */
  requestId?: string;
}

/** Stores an applied advance's report; answers its id. */
export async function recordClockAdvance(
  db: Db,
  programId: string,
  report: AdvanceReport,
  by: AdvanceAuthor,
): Promise<string> {
  if (report.dryRun) throw new Error("a dry run stores nothing");
  const row = await db.clockAdvance.create({
    data: {
      programId,
      fromAt: new Date(report.from),
      toAt: new Date(report.to),
      applied: report.applied,
      steps: report.steps,
      timeline: JSON.parse(JSON.stringify(report.timeline)),
      timelineTotal: report.timelineTotal,
      source: by.source,
      staffId: by.staffId ?? null,
      staffEmail: by.staffEmail ?? null,
      requestId: by.requestId ?? null,
    },
    select: { id: true },
  });
  return row.id;
}

/**
 * Takes the program row's lock for the rest of the transaction: one advance of a program at a time (each step of
 * program-clock.ts takes the same lock), so a second submit of the same request waits for the first and then finds
 * its stored advance.
 */
export async function lockProgramClock(tx: Tx, programId: string): Promise<void> {
  await query(tx, sql`SELECT id FROM "Program" WHERE id = ${programId}::uuid FOR UPDATE`);
}

/** The advance a dashboard submit made, if it was made. */
export function advanceByRequest(db: Db, programId: string, requestId: string) {
  return db.clockAdvance.findUnique({
    where: { programId_requestId: { programId, requestId } },
    select: { id: true, fromAt: true, toAt: true, applied: true, steps: true, timelineTotal: true },
  });
}

/**
 * An advance made through the API (`POST …/clock/advance`), stored once applied; a dry run is answered and not
 * stored. Step by step (each due instant its own transaction), the report is stored after the last step: an advance
 * cut short stores nothing, and the repeat that finishes it stores what it did.
 */
export async function advanceClockRecorded(
  prisma: PrismaClient,
  programId: string,
  input: { to: Date; dryRun?: boolean },
): Promise<AdvanceReport> {
  const report = await advanceClock(prisma, programId, input);
  if (!report.dryRun) await recordClockAdvance(prisma, programId, report, { source: "api" });
  return report;
}

/** The same in the caller's transaction (an advance under an Idempotency-Key), stored with it. */
export async function advanceClockInTransactionRecorded(tx: Tx, programId: string, to: Date): Promise<AdvanceReport> {
  const report = await advanceClockInTransaction(tx, programId, to);
  await recordClockAdvance(tx, programId, report, { source: "api" });
  return report;
}
