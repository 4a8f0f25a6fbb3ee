/**
 * Next.js calls this once per server process, before it serves requests: install the /v1 edge guard on the
 * node:http server (lib/api/http-guard.ts), open the embedded database (taking its lock), then start the
 * scheduled jobs (off with LOYALTY_JOBS=off).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installEdgeGuard } = await import("./lib/api/http-guard");
  installEdgeGuard();
  if (process.env.NEXT_PHASE === "phase-production-build") return;
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
      console.error(`error: ${err.message}`);
      process.exit(1);
    }
  }
  if (process.env.LOYALTY_JOBS === "off") return;
  const { startScheduler } = await import("./lib/jobs/scheduler");
  startScheduler();
}
