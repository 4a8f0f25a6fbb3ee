/** Next.js calls this once per server process: start the scheduled jobs (off with LOYALTY_JOBS=off). */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if (process.env.NEXT_PHASE === "phase-production-build" || process.env.LOYALTY_JOBS === "off") return;
  const { startScheduler } = await import("./lib/jobs/scheduler");
  startScheduler();
}
