/**
 * Next.js calls this once per server process, before it serves requests: install the /v1 edge guard on the
 * node:http server (lib/api/http-guard.ts), then start the scheduled jobs (off with LOYALTY_JOBS=off).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installEdgeGuard } = await import("./lib/api/http-guard");
  installEdgeGuard();
  if (process.env.NEXT_PHASE === "phase-production-build" || process.env.LOYALTY_JOBS === "off") return;
  const { startScheduler } = await import("./lib/jobs/scheduler");
  startScheduler();
}
