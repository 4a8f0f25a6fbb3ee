/**
 * Next.js calls this once per server process: guard the methods Next cannot handle (lib/api/http-guard.ts), then
 * start the scheduled jobs (off with LOYALTY_JOBS=off).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installForbiddenMethodGuard } = await import("./lib/api/http-guard");
  installForbiddenMethodGuard();
  if (process.env.NEXT_PHASE === "phase-production-build" || process.env.LOYALTY_JOBS === "off") return;
  const { startScheduler } = await import("./lib/jobs/scheduler");
  startScheduler();
}
