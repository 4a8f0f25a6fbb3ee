import "server-only";
import { config } from "@/lib/config";
import { db } from "@/lib/db/client";
import { isDatabaseUnavailable } from "@/lib/db/outage";
import { fireDueLifecycle } from "@/lib/domain/campaigns/lifecycle";
import { expireDuePoints } from "@/lib/domain/points";
import { rollUpDuePrograms } from "@/lib/domain/accounting";
import { matureDuePendingEverywhere } from "@/lib/domain/pending";
import { warnExpiringEverywhere } from "@/lib/domain/expiry-warnings";
import { recalculateDueTiers } from "@/lib/domain/tiers-engine";
import { sweepNow } from "@/lib/domain/clock";
import { recomputeDueSegments } from "@/lib/domain/segments/membership";
import { errorFields, log } from "@/lib/ops/logger";
import { recordJobRun } from "@/lib/ops/metrics";
import { runOutbox } from "./outbox";

/**
 * Periodic work inside each app instance. Every job claims rows with SKIP LOCKED, so instances running
 * it at the same moment split the work instead of repeating it.
 */
const jobs: { name: string; run: () => Promise<unknown> }[] = [
  // Live programs only, on real time; in the declared order of timers (API.md "Test programs": expiry, then tier
  // period closing, then lifecycle campaigns), the order a test program's advance runs them in
  // (lib/domain/program-clock.ts).
  { name: "points.mature", run: async () => matureDuePendingEverywhere(await db()) },
  { name: "points.expire", run: async () => expireDuePoints(await db()) },
  { name: "points.warn", run: async () => warnExpiringEverywhere(await db()) },
  { name: "tiers.recalculate", run: async () => recalculateDueTiers(await db()) },
  { name: "lifecycle.fire", run: async () => fireDueLifecycle(await db()) },
  // Every program's days that are over on its own clock (lib/domain/accounting.ts): after the timers, which write
  // the entries it sums.
  { name: "points.rollup", run: async () => rollUpDuePrograms(await db()) },
  {
    name: "segments.recompute",
    run: async () => {
      const prisma = await db();
      return recomputeDueSegments((work) => prisma.$transaction(work), sweepNow(), config().SEGMENT_RECOMPUTE_MINUTES);
    },
  },
];

/** The timers of the started jobs, and the runs in progress (awaited by stopScheduler). */
const timers: NodeJS.Timeout[] = [];
const inProgress = new Set<Promise<void>>();
let stopped = false;

/** Runs the jobs one after another; a slow run is never overlapped by the next tick, and none starts once stopped. */
function ticker(list: typeof jobs) {
  let running = false;
  return async () => {
    if (running || stopped) return;
    running = true;
    const run = runAll(list).finally(() => {
      running = false;
      inProgress.delete(run);
    });
    inProgress.add(run);
    await run;
  };
}

async function runAll(list: typeof jobs) {
  for (const job of list) {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const result = await job.run();
      recordJobRun(job.name, "ok", seconds());
      log()[config().LOYALTY_JOBS_LOG ? "info" : "debug"]({ job: job.name, result, ms: seconds() * 1000 }, "job run");
    } catch (err) {
      // A database outage is not a bug: one line per tick, without a stack (lib/db/outage.ts).
      if (isDatabaseUnavailable(err)) {
        recordJobRun(job.name, "unavailable", seconds());
        log().warn({ job: job.name }, "database unavailable");
      } else {
        recordJobRun(job.name, "failed", seconds());
        log().error({ job: job.name, ...errorFields(err) }, "job failed");
      }
    }
  }
}

function every(ms: number, list: typeof jobs) {
  const tick = ticker(list);
  timers.push(setInterval(tick, ms).unref(), setTimeout(tick, Math.min(ms, 5_000)).unref());
}

/**
 * Graceful shutdown (server/main.ts): no new run starts, and the promise settles when the runs in progress (the
 * current outbox batch included) have ended. Claims are SKIP LOCKED rows, so a run cut short by a forced exit is
 * picked up again by another instance's next pass.
 */
export async function stopScheduler(): Promise<void> {
  stopped = true;
  for (const timer of timers.splice(0)) clearTimeout(timer);
  await Promise.all(inProgress);
}

export function startScheduler() {
  stopped = false;
  every(config().LOYALTY_JOBS_INTERVAL_MS, jobs);
  // Webhooks and push notifications should leave within seconds of the change.
  every(config().OUTBOX_INTERVAL_MS, [{ name: "outbox", run: async () => runOutbox(await db()) }]);
}
