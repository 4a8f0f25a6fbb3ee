/**
 * The start of a `next start` process (instrumentation.ts, nodejs runtime only): install the /v1 edge guard on the
 * node:http server (lib/api/http-guard.ts), check the environment (lib/config.ts) so a bad value stops the start
 * with its name, open the embedded database (taking its lock), then start the scheduled jobs (off with LOYALTY_JOBS=off).
 */
import "server-only";
import { installEdgeGuard } from "./lib/api/http-guard";

/** Stops the start with one line for the operator. */
function stop(message: string): never {
  console.error(`error: ${message}`);
  process.exit(1);
}

export async function registerNode() {
  installEdgeGuard();
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  // Loaded at start, not at the first request: a cluster worker must answer the primary's metrics collection at once.
  await import("./lib/ops/metrics");
  const { config } = await import("./lib/config");
  let settings: ReturnType<typeof config>;
  try {
    settings = config();
  } catch (err) {
    stop((err as Error).message);
  }
  const { databaseTarget } = await import("./lib/db/adapter");
  if (databaseTarget().kind === "pglite") {
    // The server takes the embedded database's lock before it answers anything, so the admin CLI run beside it
    // is refused rather than racing it for the directory, and a server started beside a CLI stops at once.
    const { db } = await import("./lib/db/client");
    const { DatabaseLockedError } = await import("./lib/db/pglite-lock");
    try {
      await db();
    } catch (err) {
      if (!(err instanceof DatabaseLockedError)) throw err;
      stop(err.message);
    }
  }
  if (settings.LOYALTY_JOBS === "off") return;
  const { startScheduler } = await import("./lib/jobs/scheduler");
  startScheduler();
}
