/**
 * Security headers on every answer, pages and JSON alike (README "Security and operations"). Pages also get a
 * nonce Content-Security-Policy from proxy.ts (lib/staff/security-headers.ts); JSON answers get the strict one here.
 */
const EVERY_ANSWER = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=(), browsing-topics=()" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];
/** JSON is never a document: nothing may load from it, nothing may frame it. */
const JSON_CSP = { key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" };
/** Sent when the request came over https (as the TLS-terminating proxy says); browsers ignore it over http. */
const HSTS = { key: "Strict-Transport-Security", value: "max-age=31536000; includeSubDomains" };

/** @type {import('next').NextConfig} */
const nextConfig = {
  // WebAssembly and native database drivers must load from node_modules at run time, not be bundled.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/adapter-pg", "pg", "@prisma/client"],
  poweredByHeader: false,
  reactStrictMode: true,
  async headers() {
    return [
      { source: "/:path*", headers: EVERY_ANSWER },
      { source: "/v1/:path*", headers: [JSON_CSP] },
      { source: "/api/:path*", headers: [JSON_CSP] },
      { source: "/:path*", has: [{ type: "header", key: "x-forwarded-proto", value: "https" }], headers: [HSTS] },
    ];
  },
};

export default nextConfig;
