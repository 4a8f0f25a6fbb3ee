/**
 * The one place that reads the staff surface's environment: session lifetimes, sign-in throttling, which
 * origin the app is served from and whether a reverse proxy's X-Forwarded-* headers are trusted.
 * Read once at start; a bad value stops the start with a message naming the variable.
 */
import { z } from "zod";

const Seconds = z.coerce.number().int().min(1).max(30 * 24 * 3600);

const Env = z.object({
  /** Public origin of the app (https://loyalty.example.com). Set it in production: redirects and Origin checks use it. */
  NEXTAUTH_URL: z.url().optional(),
  /**
   * How many reverse proxies in front of the app append to X-Forwarded-For and set X-Forwarded-Host/-Proto.
   * 0 (default): none are trusted — the client address is the one Next.js records, the host is the Host header.
   */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /** A session ends this long after sign-in, whatever the activity (default 12 h). */
  STAFF_SESSION_MAX_AGE_SECONDS: Seconds.default(12 * 3600),
  /** …and after this long without a request (default 8 h). */
  STAFF_SESSION_IDLE_SECONDS: Seconds.default(8 * 3600),
  /** First backoff step after the 5th failed sign-in; it doubles with every further failure (default 1 s). */
  STAFF_SIGNIN_BACKOFF_BASE_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
  /** Lock after the 10th failure, for this long (default 15 min). */
  STAFF_SIGNIN_LOCK_SECONDS: Seconds.default(15 * 60),
});

function load() {
  const parsed = Env.safeParse({ ...process.env, NEXTAUTH_URL: process.env.NEXTAUTH_URL || undefined });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ");
    throw new Error(`Invalid staff settings in the environment: ${problems}`);
  }
  return parsed.data;
}

export const staffSettings = load();

/** The configured public origin (`https://host[:port]`), or null when the app derives it from each request. */
export const configuredOrigin: string | null = staffSettings.NEXTAUTH_URL ? new URL(staffSettings.NEXTAUTH_URL).origin : null;
