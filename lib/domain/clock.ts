import { AsyncLocalStorage } from "node:async_hooks";
import { realTime } from "./real-time";

/**
 * The business time of a program: when an entry, a lot or a redemption is made, when points expire, when a tier
 * period ends, the windows of caps, cancellations and referrals. Every business rule takes its time from here, read
 * once per operation and passed down as a parameter (`now`/`at`), so that every row an operation writes carries the
 * same time and a program's clock can be moved without touching the rules.
 *
 * A live program runs on real time. A test program (issue 25) has a stored clock, `Program.clockAt`, frozen between
 * advances (lib/domain/program-clock.ts moves it). The request that acts on a test program already knows it is one
 * (the api-key lookup, cached, carries the program's mode; the staff member's membership read carries the clock), so
 * only a test program's request reads its clock, in one primary-key read, and runs its handler `onProgramClock`:
 * `programNow` stays synchronous and a live program's hot path pays nothing for it.
 */

interface ProgramTime {
  programId: string;
  at: Date;
}

/**
 * The clock of the operation in progress. On globalThis under a `Symbol.for` key: the front and the code Next loads
 * are separate copies of this module (lib/api/front-channels.ts), and every copy must see the same store.
 */
const SLOT = Symbol.for("loyalty.programClock");
const holder = globalThis as unknown as Record<symbol, AsyncLocalStorage<ProgramTime> | undefined>;
const current = (holder[SLOT] ??= new AsyncLocalStorage<ProgramTime>());

/**
 * The current business time of one program: its test clock when the operation runs `onProgramClock` for it, real
 * time otherwise (a live program). Synchronous on purpose: the hot path must not pay a round trip for it.
 */
export function programNow(programId: string): Date {
  const clock = current.getStore();
  if (clock && clock.programId === programId) return clock.at;
  return realTime();
}

/**
 * Runs `fn` with `clockAt` as the program's business time (a test program's stored clock); with null (a live
 * program), simply runs it.
 */
export function onProgramClock<T>(programId: string, clockAt: Date | null, fn: () => T): T {
  return clockAt ? current.run({ programId, at: clockAt }, fn) : fn();
}

/**
 * The time of a job's sweep (points expiry, tier periods): one program's, or, for a sweep over every program at
 * once, real time. A sweep over every program takes live programs only (a test program's timers run when its clock
 * is advanced, lib/domain/program-clock.ts), so real time is every swept program's time.
 */
export function sweepNow(programId?: string): Date {
  return programId === undefined ? realTime() : programNow(programId);
}
