import "server-only";
import { config } from "@/lib/config";
import { db } from "@/lib/db/client";
import { isDatabaseUnavailable } from "@/lib/db/outage";
import { expireDuePoints } from "@/lib/domain/points";
import { recalculateDueTiers } from "@/lib/domain/tiers-engine";
import { errorFields, log } from "@/lib/ops/logger";
import { recordJobRun } from "@/lib/ops/metrics";
import { runOutbox } from "./outbox";

/**
 * Periodic work inside each app instance. Every job claims rows with SKIP LOCKED, so instances running
 * it at the same moment split the work instead of repeating it.
 */
const jobs: { name: string; run: () => Promise<unknown> }[] = [
  { name: "tiers.recalculate", run: async () => recalculateDueTiers(await db()) },
  { name: "points.expire", run: async () => expireDuePoints(await db()) },
];

/** Runs the jobs one after another; a slow run is never overlapped by the next tick. */
function ticker(list: typeof jobs) {
  let running = false;
  return async () => {
    if (running) return;
    running = true;
    try {
      await runAll(list);
    } finally {
      running = false;
    }
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
  setInterval(tick, ms).unref();
  setTimeout(tick, Math.min(ms, 5_000)).unref();
}

export function startScheduler() {
  every(config().LOYALTY_JOBS_INTERVAL_MS, jobs);
  // Webhooks and push notifications should leave within seconds of the change.
  every(config().OUTBOX_INTERVAL_MS, [{ name: "outbox", run: async () => runOutbox(await db()) }]);
}
