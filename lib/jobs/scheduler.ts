import { db } from "@/lib/db/client";
import { expireDuePoints } from "@/lib/domain/points";
import { recalculateDueTiers } from "@/lib/domain/tiers-engine";

/**
 * Periodic work inside each app instance. Every job claims rows with SKIP LOCKED, so instances running
 * it at the same moment split the work instead of repeating it.
 */
const jobs: { name: string; run: () => Promise<unknown> }[] = [
  { name: "tiers.recalculate", run: async () => recalculateDueTiers(await db()) },
  { name: "points.expire", run: async () => expireDuePoints(await db()) },
];

let running = false;

async function tick() {
  if (running) return; // a slow run is never overlapped by the next tick
  running = true;
  try {
    for (const job of jobs) {
      try {
        const result = await job.run();
        if (process.env.LOYALTY_JOBS_LOG === "1") console.log(JSON.stringify({ level: "info", job: job.name, result }));
      } catch (err) {
        console.error(JSON.stringify({ level: "error", job: job.name, error: String((err as Error)?.stack ?? err) }));
      }
    }
  } finally {
    running = false;
  }
}

export function startScheduler(intervalMs = Number(process.env.LOYALTY_JOBS_INTERVAL_MS ?? 60_000)) {
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  setTimeout(tick, Math.min(intervalMs, 5_000)).unref();
}
