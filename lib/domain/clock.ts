/**
 * The business time of a program: when an entry, a lot or a redemption is made, when points expire, when a tier
 * period ends, the windows of caps, cancellations and referrals. Every business rule takes its time from here, read
 * once per operation and passed down as a parameter (`now`/`at`), so that every row an operation writes carries the
 * same time and a program's clock can be moved without touching the rules.
 *
 * Every program runs on real time today. A movable test clock (an offset or a frozen time stored on the program)
 * plugs in here: `programNow` is the seam, and nothing else reads the time for a business rule.
 */

/**
 * The current business time of one program. Synchronous on purpose: the hot path must not pay a round trip for it,
 * so a test clock will come with the program row the request already loads.
 */
export function programNow(programId: string): Date {
  void programId;
  return new Date();
}

/**
 * The time of a job's sweep (points expiry, tier periods): one program's, or, for a sweep over every program at
 * once, real time. That is sound only while every program runs on real time: with a per-program test clock, a sweep
 * must go program by program, each at `programNow`.
 */
export function sweepNow(programId?: string): Date {
  return programId === undefined ? new Date() : programNow(programId);
}
