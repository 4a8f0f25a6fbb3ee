import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Db, Tx } from "@/lib/db/types";
import { execute, query, raw, sql } from "@/lib/db/sql";
import { programNotTest, validationFailed } from "@/lib/errors";
import { programNow } from "./clock";
import { expireDueLots } from "./ledger";
import { lotExpirySql } from "./expiry-rules";
import { nextWarningSql, warnExpiringPoints } from "./expiry-warnings";
import { matureDuePending } from "./pending";
import { requireProgram } from "./programs";
import { fireLifecycleAt, moveWatermark, nextLifecycleMoment } from "./campaigns/lifecycle";
import { addMonths } from "./tier-rules";
import { recalculateIfDue } from "./tiers-engine";
import { nextSegmentFlip, recomputeProgramSegments } from "./segments/membership";

/**
 * A program's clock (API.md "Test programs"): reading it, and moving a test program's clock forward with every timer
 * that falls due on the way, each at its own instant.
 *
 * The timers that exist today, and the one order in which those due at the same instant run (the scheduler runs its
 * sweeps of live programs in the same order, lib/jobs/scheduler.ts): pending points maturing (pending.ts), points
 * expiry (fixed and `inactivity` expiries, expiry-rules.ts), the `points.expiring` warnings, tier period closing,
 * then lifecycle campaigns (campaigns/lifecycle.ts: birthdays, anniversaries, inactivity, signups, tiers reached),
 * which so see the balance and tier of the instant; last, the segments whose customers' answers were due to flip by
 * the instant (segments/membership.ts: a due pass, not a timeline kind; their `segment.entered`/`segment.left` count
 * in `webhooks`).
 *
 * An advance is a sequence of steps, one per due instant in time order. Each step is one transaction: it locks the
 * program row, runs the timers due by its instant with that instant as the program's now, and moves the stored clock
 * to it. An advance cut short (the process killed) therefore leaves the program as of its last whole step, with the
 * clock there; repeating the call continues from that clock, and as every timer is due by state (a lot with points
 * left past its expiry, a period whose recalculationDate has passed), nothing runs twice. A dry run runs the same
 * steps in one transaction and rolls it back.
 */

export const MAX_ADVANCE_MONTHS = 24;
/** The answer lists at most this many timeline entries (the earliest); `timelineTotal` counts them all. */
export const TIMELINE_LIMIT = 1000;
/** The timers, in the order they run at one instant. */
export const TIMER_ORDER = [
  "points.matured",
  "points.expired",
  "points.expiring",
  "tier.period_closed",
  "lifecycle.fired",
] as const;

export type TimelineKind =
  "points.matured" | "points.expired" | "tier.period_closed" | "tier.changed" | "lifecycle.fired";

export interface TimelineEntry {
  at: string;
  kind: TimelineKind;
  customer: string;
  detail: Record<string, unknown>;
}

export interface AdvanceReport {
  from: string;
  to: string;
  dryRun: boolean;
  applied: {
    expiredLots: number;
    expiredPoints: number;
    tierChanges: number;
    pendingActivated: number;
    lifecycleFired: number;
    webhooks: number;
  };
  steps: number;
  timeline: TimelineEntry[];
  timelineTotal: number;
  timelineLimit: number;
}

/** The program's clock: a test program's stored time, or real time for a live one. */
export async function readClock(db: Db, programId: string): Promise<{ now: string; mode: "live" | "test" }> {
  const program = await requireProgram(db, programId, { test: true, clockAt: true });
  return {
    now: (program.clockAt ?? programNow(programId)).toISOString(),
    mode: program.test ? "test" : "live",
  };
}

/** Runs one piece of work in a transaction: its own (an advance), or the one every step shares (a dry run). */
type InTransaction = <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;

const STEP_TIMEOUT_MS = 600_000;

class DryRunDone extends Error {
  constructor(readonly report: AdvanceReport) {
    super("dry run rolled back");
  }
}

/**
 * Moves a test program's clock to `to` (forward only, at most MAX_ADVANCE_MONTHS), running every timer due on the
 * way; with `dryRun`, answers the same report and stores nothing (one transaction, rolled back).
 */
export async function advanceClock(
  prisma: PrismaClient,
  programId: string,
  input: { to: Date; dryRun?: boolean },
): Promise<AdvanceReport> {
  if (!input.dryRun) {
    const own: InTransaction = (work) => prisma.$transaction(work, { timeout: STEP_TIMEOUT_MS, maxWait: 30_000 });
    return advance(own, prisma, programId, input.to, false);
  }
  try {
    await prisma.$transaction(
      async (tx) => {
        throw new DryRunDone(await advance((work) => work(tx), tx, programId, input.to, true));
      },
      { timeout: STEP_TIMEOUT_MS, maxWait: 30_000 },
    );
  } catch (err) {
    if (err instanceof DryRunDone) return err.report;
    throw err;
  }
  throw new Error("unreachable: a dry run always rolls back");
}

/**
 * The same advance in the caller's transaction, committed with it (an advance under an Idempotency-Key: its outcome
 * is stored in that transaction). All or nothing: cut short, nothing of it stays, and repeating it runs it whole.
 */
export const advanceClockInTransaction = (tx: Tx, programId: string, to: Date): Promise<AdvanceReport> =>
  advance((work) => work(tx), tx, programId, to, false);

async function advance(
  inTransaction: InTransaction,
  db: Db,
  programId: string,
  to: Date,
  dryRun: boolean,
): Promise<AdvanceReport> {
  const program = await requireProgram(db, programId, { test: true, clockAt: true });
  if (!program.test || !program.clockAt) throw programNotTest();
  const from = program.clockAt;
  if (to < from)
    throw validationFailed([
      {
        path: "to",
        message: `must not be before the program's clock, ${from.toISOString()}: a clock only moves forward`,
      },
    ]);
  const limit = addMonths(from, MAX_ADVANCE_MONTHS);
  if (to > limit)
    throw validationFailed([
      {
        path: "to",
        message: `must be at most two years after the program's clock (${limit.toISOString()} at the latest)`,
      },
    ]);
  const report: AdvanceReport = {
    from: from.toISOString(),
    to: to.toISOString(),
    dryRun,
    applied: { expiredLots: 0, expiredPoints: 0, tierChanges: 0, pendingActivated: 0, lifecycleFired: 0, webhooks: 0 },
    steps: 0,
    timeline: [],
    timelineTotal: 0,
    timelineLimit: TIMELINE_LIMIT,
  };
  // Segments first, at `from`: the customers whose data changed since the last pass (an event at the stopped clock)
  // get their change, dated at the instant it happened, and their next flips, which the steps below then reach.
  report.applied.webhooks += (
    await inTransaction((tx) => recomputeProgramSegments(tx, programId, from, { due: true }))
  ).events;
  // The first step runs at `from` whatever is already due by then (nothing, unless a spend has not yet expired it).
  let after: Date | null = null;
  for (;;) {
    const due = await nextDue(db, programId, after, to);
    if (!due || due > to) break;
    const at = due < from ? from : due;
    const clock = await inTransaction((tx) => step(tx, programId, at, report));
    // Another advance of this program may have moved the clock past this instant meanwhile: it ran these timers.
    after = clock > at ? clock : at;
  }
  await inTransaction(async (tx) => {
    await moveClock(tx, programId, to);
    // Every lifecycle moment up to `to` was a step: the next advance sweeps from here.
    await moveWatermark(tx, programId, to);
    // Segments at the instant the clock reached (membership.ts): the changes time alone made, once.
    report.applied.webhooks += (await recomputeProgramSegments(tx, programId, to)).events;
  });
  return report;
}

/** The earliest instant after `after` (any, when null) at which a timer of the program is due. */
async function nextDue(db: Db, programId: string, after: Date | null, to: Date): Promise<Date | null> {
  const timers = await nextTimerDue(db, programId, after);
  const lifecycle = await nextLifecycleMoment(db, programId, after, to);
  // The next instant a segment's answer can flip with time alone (segments/membership.ts): a step of its own, so the
  // change is dated at its instant (and one that happens and is undone within the advance is seen).
  const flip = await nextSegmentFlip(db, programId, after);
  const times = [timers, lifecycle, flip].filter((d): d is Date => d !== null);
  return times.length ? new Date(Math.min(...times.map((d) => d.getTime()))) : null;
}

/**
 * The earliest instant after `after` (any, when null) at which pending points mature, a lot expires (a fixed expiry,
 * or an `inactivity` lot's: expiry-rules.ts), an expiry warning is due or a tier period closes.
 */
async function nextTimerDue(db: Db, programId: string, after: Date | null): Promise<Date | null> {
  const since = after?.toISOString() ?? null;
  const [row] = await query<{ at: Date | string | null }>(
    db,
    sql`SELECT LEAST(
       (SELECT min(x."maturesAt") FROM "PendingPoints" x
         WHERE x."programId" = ${programId}::uuid AND x.status = 'pending' AND x."maturesAt" IS NOT NULL
           AND (${since}::timestamptz IS NULL OR x."maturesAt" > ${since}::timestamptz)),
       (SELECT min(pl."expiresAt") FROM "PointLot" pl
         WHERE pl."programId" = ${programId}::uuid AND pl.remaining > 0 AND pl."expiresAt" IS NOT NULL
           AND (${since}::timestamptz IS NULL OR pl."expiresAt" > ${since}::timestamptz)),
       (SELECT min(i.at) FROM (
          SELECT ${raw(lotExpirySql("pl", 'l."lastActivityAt"'))} AS at FROM "PointLot" pl
            JOIN "LoyaltyData" l ON l."programId" = pl."programId" AND l."customerId" = pl."customerId"
          WHERE pl."programId" = ${programId}::uuid AND pl.remaining > 0 AND pl."idleDays" IS NOT NULL) i
         WHERE ${since}::timestamptz IS NULL OR i.at > ${since}::timestamptz),
       (${nextWarningSql(programId, since)}),
       (SELECT min(ct."recalculationDate") FROM "CustomerTier" ct JOIN "Customer" c ON c.id = ct."customerId"
         WHERE ct."programId" = ${programId}::uuid AND c."deletedAt" IS NULL
           AND (${since}::timestamptz IS NULL OR ct."recalculationDate" > ${since}::timestamptz))
     ) AS at`,
  );
  return row?.at ? new Date(row.at) : null;
}

/**
 * One instant of an advance, in the caller's transaction: the program row locked (one advance of a program at a
 * time), the timers due by `at` in TIMER_ORDER with `at` as the program's now, then the clock moved to `at`.
 * Answers the clock as it was found (a concurrent advance may have passed `at` already: then this step does nothing).
 */
async function step(tx: Tx, programId: string, at: Date, report: AdvanceReport): Promise<Date> {
  const [locked] = await query<{ clockAt: Date | string }>(
    tx,
    sql`SELECT "clockAt" FROM "Program" WHERE id = ${programId}::uuid FOR UPDATE`,
  );
  const clock = new Date(locked!.clockAt);
  if (clock > at) return clock;
  report.steps += 1;
  const iso = at.toISOString();
  const eventsBefore = await eventsAt(tx, programId, iso);

  // Pending points first (pending.ts): points that mature at this instant are spendable, and may expire, by its end.
  for (const matured of await matureDuePending(tx, programId, at)) {
    report.applied.pendingActivated += 1;
    record(report, {
      at: iso,
      kind: "points.matured",
      customer: matured.customerId,
      detail: { points: matured.points },
    });
  }

  const expiring = await query<{ customerId: string; lots: number }>(
    tx,
    sql`SELECT pl."customerId", count(*)::int AS lots FROM "PointLot" pl
       JOIN "LoyaltyData" l ON l."programId" = pl."programId" AND l."customerId" = pl."customerId"
     WHERE pl."programId" = ${programId}::uuid AND pl.remaining > 0
       AND ${raw(lotExpirySql("pl", 'l."lastActivityAt"'))} <= ${iso}::timestamptz
     GROUP BY pl."customerId" ORDER BY pl."customerId"`,
  );
  for (const { customerId, lots } of expiring) {
    const points = await expireDueLots(tx, programId, customerId, at);
    if (points <= 0) continue;
    report.applied.expiredLots += lots;
    report.applied.expiredPoints += points;
    record(report, { at: iso, kind: "points.expired", customer: customerId, detail: { points, lots } });
  }

  // The warnings after the expiry (expiry-warnings.ts): points expired at this instant are not warned of.
  await warnExpiringPoints(tx, programId, at);

  const closing = await query<{ customerId: string }>(
    tx,
    sql`SELECT ct."customerId" FROM "CustomerTier" ct JOIN "Customer" c ON c.id = ct."customerId"
     WHERE ct."programId" = ${programId}::uuid AND c."deletedAt" IS NULL
       AND ct."recalculationDate" <= ${iso}::timestamptz
     ORDER BY ct."customerId"`,
  );
  for (const { customerId } of closing) {
    const closed = await recalculateIfDue(tx, programId, customerId, at);
    if (!closed) continue;
    const { before, after } = closed;
    const changed = before.currentTierId !== after.currentTierId;
    if (changed) report.applied.tierChanges += 1;
    record(report, {
      at: iso,
      kind: changed ? "tier.changed" : "tier.period_closed",
      customer: customerId,
      detail: {
        fromTierId: before.currentTierId,
        toTierId: after.currentTierId,
        periodTierPoints: before.currentTierPoints,
        carryTierId: after.carryTierId,
        nextPeriodEndsAt: after.recalculationDate?.toISOString() ?? null,
      },
    });
  }

  for (const fired of await fireLifecycleAt(tx, programId, at)) {
    report.applied.lifecycleFired += 1;
    record(report, {
      at: iso,
      kind: "lifecycle.fired",
      customer: fired.customerId,
      detail: {
        campaignId: fired.campaignId,
        campaignVersion: fired.campaignVersion,
        lifecycle: fired.lifecycle,
        occurrence: fired.occurrence,
        points: fired.points,
      },
    });
  }

  // Segments: the customers whose answer was due to flip by `at`, or whose data changed (their events count below).
  await recomputeProgramSegments(tx, programId, at, { due: true });

  report.applied.webhooks += (await eventsAt(tx, programId, iso)) - eventsBefore;
  await moveClock(tx, programId, at);
  return clock;
}

/** The program's events written at `at` (the outbox delivers each to the webhooks subscribed to its type). */
async function eventsAt(tx: Tx, programId: string, iso: string): Promise<number> {
  const [row] = await query<{ n: number }>(
    tx,
    sql`SELECT count(*)::int AS n FROM "Event" WHERE "programId" = ${programId}::uuid AND "createdAt" = ${iso}::timestamptz`,
  );
  return row?.n ?? 0;
}

/** Moves the stored clock forward to `at` (never back: a concurrent advance may be ahead). */
async function moveClock(tx: Tx, programId: string, at: Date) {
  const iso = at.toISOString();
  await execute(
    tx,
    sql`UPDATE "Program" SET "clockAt" = ${iso}::timestamptz
     WHERE id = ${programId}::uuid AND test AND "clockAt" < ${iso}::timestamptz`,
  );
}

function record(report: AdvanceReport, entry: TimelineEntry) {
  report.timelineTotal += 1;
  if (report.timeline.length < TIMELINE_LIMIT) report.timeline.push(entry);
}
