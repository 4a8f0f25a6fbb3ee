/**
 * Security headers on every answer, pages and JSON alike (README "Security and operations"). Pages also get a
 * nonce Content-Security-Policy from proxy.ts (lib/staff/security-headers.ts); JSON answers get the strict one here.
 * The lists live in lib/security-headers.json so that the /v1 edge guard, which answers before Next, sends them too.
 */
import SECURITY_HEADERS from "./lib/security-headers.json" with { type: "json" };

const list = (headers) => Object.entries(headers).map(([key, value]) => ({ key, value }));
/** Every answer; JSON is never a document (nothing may load from it or frame it); HSTS when the request came over https. */
const EVERY_ANSWER = list(SECURITY_HEADERS.everyAnswer);
const JSON_CSP = list(SECURITY_HEADERS.json);
const HSTS = list(SECURITY_HEADERS.https);

/** @type {import('next').NextConfig} */
const nextConfig = {
  // A self-contained server directory for the container image (Dockerfile, scripts/standalone.mjs); `next start` and
  // `next dev` work as before.
  output: "standalone",
  // WebAssembly and native database drivers must load from node_modules at run time, not be bundled.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/adapter-pg",
    "pg",
    "@prisma/client",
    // One copy per process, loaded by Node: the metrics registry and the log's request context are process-wide.
    "prom-client",
    "pino",
  ],
  poweredByHeader: false,
  reactStrictMode: true,
  // `forbidden()` (lib/staff/session.ts requirePage): a page the role may not see answers 403 with
  // app/dashboard/[programId]/forbidden.tsx. Pages render before the answer starts (no loading.tsx under
  // app/dashboard), so not-found and forbidden pages carry their real status (docs/dashboard.md).
  experimental: { authInterrupts: true },
  async headers() {
    return [
      { source: "/:path*", headers: EVERY_ANSWER },
      { source: "/v1/:path*", headers: JSON_CSP },
      { source: "/api/:path*", headers: JSON_CSP },
      { source: "/:path*", has: [{ type: "header", key: "x-forwarded-proto", value: "https" }], headers: HSTS },
    ];
  },
};

export default nextConfig;
