/**
 * The one rule for a program's allowed web origins (Program.allowedOrigins: the pages that may call the /me routes
 * with a customer token, lib/api/cors.ts). Client-safe: the settings form checks with it too.
 *
 * An origin is `https://host[:port]` or `http://host[:port]` and nothing else (no path, query, fragment or user); it
 * is stored as the browser sends it in the `Origin` header (the URL's serialised origin: lower-case scheme and host,
 * an internationalised host in its ASCII form, no default port), so the check is an exact comparison.
 */

/** The most origins a program may allow. */
export const MAX_ALLOWED_ORIGINS = 20;

/** The origin as browsers serialise it, or null when `value` is not exactly an origin. */
export function webOrigin(value: string): string | null {
  const text = value.trim().replace(/\/$/, "");
  if (!/^https?:\/\/[^/?#@\\]+$/i.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  return url.origin === "null" ? null : url.origin;
}

/** The problem with a list of origins (for a form or the CLI), or null when every one is an origin. */
export function allowedOriginsProblem(values: readonly string[]): string | null {
  if (values.length > MAX_ALLOWED_ORIGINS) return `at most ${MAX_ALLOWED_ORIGINS} origins`;
  const bad = values.find((v) => webOrigin(v) === null);
  return bad === undefined
    ? null
    : `"${bad.slice(0, 100)}" is not an origin: https://host or https://host:port, without a path`;
}

/** The origins in their stored form, without duplicates (call after allowedOriginsProblem said none). */
export const allowedOrigins = (values: readonly string[]) => [
  ...new Set(values.map((v) => webOrigin(v)).filter((o): o is string => o !== null)),
];
