/**
 * Where a request comes from and which origin it was addressed to: the one place that decides which headers are
 * trusted (TRUST_PROXY, NEXTAUTH_URL: lib/config.ts). With TRUST_PROXY=0 (default) no X-Forwarded-* header from the client is
 * believed: the host is the Host header and the origin is NEXTAUTH_URL's when set. With TRUST_PROXY=N, the N
 * proxies in front of the app are trusted to set X-Forwarded-Host/-Proto and to append to X-Forwarded-For.
 */
import "server-only";
import { config, configuredOrigin } from "@/lib/config";

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(source: HeaderSource, name: string): string | undefined {
  if (source instanceof Headers) return source.get(name) ?? undefined;
  const value = source[name];
  return Array.isArray(value) ? value.join(",") : value;
}

const first = (value: string | undefined) => value?.split(",")[0]?.trim() || undefined;

/** The host the client addressed: X-Forwarded-Host only behind a trusted proxy, else the Host header. */
export function requestHost(headers: HeaderSource): string | undefined {
  return (config().TRUST_PROXY > 0 ? first(header(headers, "x-forwarded-host")) : undefined) ?? header(headers, "host");
}

/**
 * The app's own origin for this request: NEXTAUTH_URL's when configured, else the requested host with the scheme
 * Next.js recorded for the connection (x-forwarded-proto, which it sets from the socket when a request has none).
 */
export function appOrigin(headers: HeaderSource): string | null {
  const configured = configuredOrigin();
  if (configured) return configured;
  const host = requestHost(headers);
  if (!host) return null;
  const proto = first(header(headers, "x-forwarded-proto")) === "https" ? "https" : "http";
  try {
    return new URL(`${proto}://${host}`).origin;
  } catch {
    return null;
  }
}

/**
 * Whether the app is served over https (NEXTAUTH_URL is https) or this request came over https. A forged
 * x-forwarded-proto can only add HSTS to a plain-http answer, which browsers ignore there.
 */
export function isHttps(headers: HeaderSource): boolean {
  return !!configuredOrigin()?.startsWith("https:") || first(header(headers, "x-forwarded-proto")) === "https";
}

/**
 * The client's address, for per-address sign-in throttling. Behind N trusted proxies: the Nth entry from the
 * right of X-Forwarded-For (the address the outermost trusted proxy saw). Without: Next.js puts the socket's
 * address in X-Forwarded-For only when the request brought none, so a client that sends its own header names its
 * own key — per-address throttling is then best-effort and per-account throttling is what holds (docs/operating.md).
 */
export function clientAddress(headers: HeaderSource): string {
  const forwarded = (header(headers, "x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const { TRUST_PROXY } = config();
  if (TRUST_PROXY > 0 && forwarded.length) return forwarded[Math.max(0, forwarded.length - TRUST_PROXY)]!;
  return forwarded.join(",") || "unknown";
}

/**
 * Whether `value` is a URL on `origin`: an absolute URL, or a path starting with "/" (as next-auth reads them; "//x"
 * and "/\x" name another host). Malformed text is not.
 */
export function isOwnUrl(value: string, origin: string | null): boolean {
  if (!origin) return false;
  try {
    return (value.startsWith("/") ? new URL(value, origin) : new URL(value)).origin === origin;
  } catch {
    return false;
  }
}

/** next-auth's callback-url cookie names (plain and https). */
const CALLBACK_COOKIE = /^(__Secure-)?next-auth\.callback-url$/;

/**
 * The Cookie header without a next-auth callback-url cookie that points off-site or is malformed (next-auth would
 * answer such a cookie with a 500 on every auth request until it expired). Null when nothing changes.
 */
export function withoutForeignCallbackCookie(cookieHeader: string | null, origin: string | null): string | null {
  if (!cookieHeader) return null;
  const parts = cookieHeader.split(";");
  const kept = parts.filter((part) => {
    const eq = part.indexOf("=");
    const name = part.slice(0, eq < 0 ? undefined : eq).trim();
    if (!CALLBACK_COOKIE.test(name)) return true;
    let value = part.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      return false;
    }
    return isOwnUrl(value, origin);
  });
  return kept.length === parts.length ? null : kept.join(";");
}
