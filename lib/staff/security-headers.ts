/**
 * Security headers: the one place for the pages' Content-Security-Policy (with a per-request nonce) and HSTS.
 * The static headers every answer carries — /v1 and /api included — are in next.config.mjs `headers()`, so the
 * JSON API pays no proxy cost for them. proxy.ts calls `securePage` for everything else.
 *
 * The CSP allows only this app's own scripts: Next.js reads the nonce from the request's CSP header and puts it on
 * every script it renders ('strict-dynamic' lets those load their chunks). Styles may be inline (`style`
 * attributes from React and recharts); images from this origin, data: and https: (reward images).
 */
import "server-only";
import { NextResponse, type NextRequest } from "next/server";
import { appOrigin, isHttps, requestHost, withoutForeignCallbackCookie } from "./request-origin";
import { config, configuredOrigin } from "@/lib/config";

export const HSTS = "max-age=31536000; includeSubDomains";

export function pageCsp(nonce: string, options: { dev: boolean; https: boolean }): string {
  return [
    "default-src 'self'",
    // Next.js's development mode (React refresh) evaluates code; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(options.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/**
 * The proxy step for pages and /api/auth: a nonce CSP and HSTS on pages, and — without NEXTAUTH_URL — the host
 * next-auth builds its redirects from pinned to the one request-origin.ts trusts, so a client's own
 * X-Forwarded-Host cannot steer them. An off-site or malformed callback-url cookie is dropped on the way in.
 */
export function securePage(request: NextRequest): NextResponse {
  const headers = new Headers(request.headers);
  if (!configuredOrigin()) {
    const host = requestHost(request.headers);
    if (host) headers.set("x-forwarded-host", host);
    else headers.delete("x-forwarded-host");
    // `next start` speaks plain http: without a trusted proxy, a client's x-forwarded-proto is not believed either.
    if (config().TRUST_PROXY === 0) headers.set("x-forwarded-proto", "http");
  }
  const cookie = withoutForeignCallbackCookie(request.headers.get("cookie"), appOrigin(headers));
  if (cookie !== null) headers.set("cookie", cookie);
  const https = isHttps(request.headers);
  const isApi = request.nextUrl.pathname.startsWith("/api/");
  const csp = isApi
    ? null
    : pageCsp(Buffer.from(crypto.randomUUID()).toString("base64"), {
        dev: process.env.NODE_ENV === "development",
        https,
      });
  if (csp) headers.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers } });
  if (csp) response.headers.set("content-security-policy", csp);
  // A request that came over https gets HSTS from next.config.mjs; this covers an https NEXTAUTH_URL.
  if (https && !response.headers.has("strict-transport-security"))
    response.headers.set("strict-transport-security", HSTS);
  return response;
}
