/**
 * The start of a server process (instrumentation.ts, nodejs runtime only), under `next start`/`next dev` and under the
 * production front (server/main.ts) alike: install the /v1 edge guard on the node:http server (lib/api/http-guard.ts;
 * not under the front, which applies the verdicts itself), check the environment (lib/config.ts) so a bad value stops
 * the start with its name, open the embedded database (taking its lock), start the scheduled jobs (off with
 * LOYALTY_JOBS=off), and leave the front a drain hook for its graceful shutdown.
 */
import "server-only";
import { installEdgeGuard } from "./lib/api/http-guard";
import { servedByFront, setDrain } from "./lib/api/front-channels";

/** Stops the start with one line for the operator. */
function stop(message: string): never {
  console.error(`error: ${message}`);
  process.exit(1);
}

export async function registerNode() {
  if (!servedByFront()) installEdgeGuard();
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
  const { disconnectDb } = await import("./lib/db/client");
  const { startScheduler, stopScheduler } = await import("./lib/jobs/scheduler");
  setDrain(async () => {
    await stopScheduler();
    await disconnectDb();
  });
  if (settings.LOYALTY_JOBS === "off") return;
  startScheduler();
}
