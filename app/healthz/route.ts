// GET /healthz: 200 while the process is alive and serving. Touches no database (that is /readyz).

const BODY = JSON.stringify({ status: "ok" });

export const dynamic = "force-dynamic";

export function GET() {
  return new Response(BODY, { headers: { "content-type": "application/json", "cache-control": "no-store" } });
}
