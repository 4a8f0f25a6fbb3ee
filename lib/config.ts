/**
 * The one place that reads the service's environment: every variable the server, its jobs, the admin CLI and the
 * migration tool read is declared here once, with its type, default and unit, and validated with zod. A bad value
 * fails the first read with a message naming the variable (at start: instrumentation-node.ts for `next start`, the first
 * database open for the CLI and db:migrate) instead of turning into a NaN somewhere later. An empty value counts as
 * unset. NODE_ENV, NEXT_RUNTIME and NEXT_PHASE are not here: Next inlines them at build time, so they stay literal
 * `process.env.X` reads where they are used. bench/, playwright.config.ts and the tests read their own variables.
 */
import "server-only";
import { z } from "zod";

const SECOND_MS = 1000;
const HOUR_S = 3600;

/** A whole number in [min, max], given in decimal digits. */
const whole = (min: number, max: number) =>
  z.coerce
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
const seconds = whole(1, 30 * 24 * HOUR_S);
/** One of a few words (surrounding spaces ignored). */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .trim()
    .pipe(z.enum(values, { error: `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}` }));
/** A development switch: "1" on, "0" off. */
const flag = oneOf(["0", "1"]).transform((v) => v === "1");

/** Every variable, its meaning (restated in docs/operating.md's environment table), unit and default. */
export const ENV = z.object({
  // Server (npm start: server/main.ts)
  PORT: whole(1, 65_535).default(3000).describe("TCP port the server listens on."),
  HOST: z.string().trim().default("0.0.0.0").describe("Address the server listens on."),
  LOYALTY_WORKERS: whole(1, 256)
    .optional()
    .describe("Server processes (node:cluster workers); unset: one per core. Always 1 with the embedded PGlite."),
  SHUTDOWN_TIMEOUT_MS: whole(100, 600_000)
    .default(10 * SECOND_MS)
    .describe("On SIGTERM/SIGINT, how long in-flight requests and the current job run may take before the exit."),
  // Database
  DATABASE_URL: z
    .string()
    .trim()
    .optional()
    .describe("PostgreSQL server to use (postgres://user:pass@host:5432/db); unset: embedded PGlite."),
  PGLITE_DIR: z
    .string()
    .trim()
    .default(".data/pglite")
    .describe("Data directory of the embedded database (one process at a time)."),
  DATABASE_POOL_SIZE: whole(1, 1000).default(10).describe("Connections in the PostgreSQL pool of each process."),
  DATABASE_CONNECT_TIMEOUT_MS: whole(1, 600_000)
    .default(2 * SECOND_MS)
    .describe("How long opening one PostgreSQL connection may take before the request answers 503."),
  DATABASE_PGBOUNCER: flag
    .optional()
    .describe(
      "1: DATABASE_URL is a PgBouncer in transaction pooling mode: no named prepared statements. Unset: ?pgbouncer=true in the URL.",
    ),
  // /v1
  API_KEY_CACHE_MS: whole(0, 3_600_000)
    .default(2 * SECOND_MS)
    .describe("How long a verified API key is remembered (a revoked key works this long)."),
  EVENT_STATEMENTS_IN_FLIGHT: whole(0, 64)
    .default(2)
    .describe(
      "Keyed customer events' statements one process runs at once; those waiting meanwhile go together as one (0: each alone).",
    ),
  RATE_LIMIT_STORE: oneOf(["memory", "database"])
    .optional()
    .describe('Where rate-limit buckets live; unset: "database" with PostgreSQL, "memory" with PGlite.'),
  // Scheduled jobs and deliveries
  LOYALTY_JOBS: oneOf(["on", "off"])
    .default("on")
    .describe("The scheduled jobs (tiers, points expiry, outbox) in this instance."),
  LOYALTY_JOBS_INTERVAL_MS: whole(100, 86_400_000)
    .default(60 * SECOND_MS)
    .describe("Pause between runs of the tier and expiry jobs."),
  SEGMENT_RECOMPUTE_MINUTES: whole(1, 10_080)
    .default(60)
    .describe(
      "Minutes of a live program's clock between two recomputes of a segment's membership (entered/left webhooks).",
    ),
  LOYALTY_JOBS_LOG: flag.default(false).describe("1: log each job run's result."),
  OUTBOX_INTERVAL_MS: whole(10, 3_600_000)
    .default(2 * SECOND_MS)
    .describe("Pause between outbox passes (webhook and push deliveries)."),
  OUTBOX_BASE_DELAY_MS: whole(1, 3_600_000)
    .default(10 * SECOND_MS)
    .describe("First retry delay of a failed delivery; doubles per attempt (capped at 1 h)."),
  OUTBOX_GIVE_UP_AFTER_MS: whole(1, 30 * 86_400_000)
    .default(24 * HOUR_S * SECOND_MS)
    .describe("A delivery stops being retried this long after it was created."),
  LOYALTY_ALLOW_HTTP_WEBHOOKS: flag
    .default(false)
    .describe("Development only, 1: deliveries may go to loopback addresses, over http too."),
  // Staff dashboard
  NEXTAUTH_URL: z
    .url("must be a URL such as https://loyalty.example.com")
    .optional()
    .describe("Public origin of the app; set it in production (redirects, Origin checks)."),
  NEXTAUTH_SECRET: z
    .string()
    .optional()
    .describe("Session-signing secret; set the same one on every instance. Unset: generated into AUTH_SECRET_FILE."),
  AUTH_SECRET_FILE: z
    .string()
    .trim()
    .default(".data/auth-secret")
    .describe("Where the generated session secret is kept (mode 600)."),
  TRUST_PROXY: whole(0, 10)
    .default(0)
    .describe("How many reverse proxies set X-Forwarded-For/-Host/-Proto; 0: none is believed."),
  STAFF_SESSION_MAX_AGE_SECONDS: seconds
    .default(12 * HOUR_S)
    .describe("A staff session ends this long after sign-in, whatever the activity."),
  STAFF_SESSION_IDLE_SECONDS: seconds
    .default(8 * HOUR_S)
    .describe("A staff session also ends after this long without a request."),
  STAFF_SIGNIN_BACKOFF_BASE_MS: whole(1, 60_000)
    .default(SECOND_MS)
    .describe("First wait after the 5th failed sign-in; doubles with each further failure."),
  STAFF_SIGNIN_LOCK_SECONDS: seconds
    .default(15 * 60)
    .describe("The 10th failed sign-in locks the account or address this long."),
  // Operations
  LOG_LEVEL: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("Least severe JSON log line written (info: one access line per request)."),
  METRICS_TOKEN: z
    .string()
    .trim()
    .min(16, "must be at least 16 characters")
    .optional()
    .describe("Bearer token of GET /metrics (Prometheus); unset: /metrics answers 404."),
  // Tools
  DEBUG_SCHEMA_ENGINE: z
    .string()
    .optional()
    .transform((v) => v !== undefined)
    .describe("Any value: db:migrate prints the schema engine's log and error stacks."),
});

export type Config = z.infer<typeof ENV>;
/** An environment to read: process.env, or a test's own. */
export type Environment = Readonly<Record<string, string | undefined>>;

const NAMES = Object.keys(ENV.shape) as (keyof Config)[];

/** The declared variables of `env`, an empty or blank value counting as unset. */
function declared(env: Environment): Record<string, string | undefined> {
  return Object.fromEntries(NAMES.map((name) => [name, env[name]?.trim() ? env[name] : undefined]));
}

/** A variable has a value its declaration refuses; the message names every such variable and its value. */
export class InvalidEnvironmentError extends Error {
  name = "InvalidEnvironmentError";
}

/**
 * The configuration in `env`, parsed now: for tests and the modules' `env` seams (`databaseTarget(env)`), and for a
 * setting read at each use (LOYALTY_ALLOW_HTTP_WEBHOOKS, which tests switch in-process). Throws one error naming
 * every bad variable.
 */
export function loadConfig(env: Environment = process.env): Config {
  const raw = declared(env);
  const parsed = ENV.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.join(".")} ${i.message} (got ${JSON.stringify(raw[String(i.path[0])])})`,
    );
    throw new InvalidEnvironmentError(`Invalid environment: ${problems.join("; ")}`);
  }
  return parsed.data;
}

let parsedOnce: Config | undefined;

/**
 * The process's configuration, parsed on first use (not at import, so a bad value is reported where the process
 * can report it: instrumentation-node.ts, the CLI's error line) and kept: a call costs a property read, so the
 * request path may call it. The environment of a running process does not change.
 */
export const config = (): Config => (parsedOnce ??= loadConfig(process.env));

let origin: string | null | undefined;

/** The configured public origin (`https://host[:port]`), or null when the app derives it from each request. */
export function configuredOrigin(): string | null {
  if (origin === undefined) {
    const url = config().NEXTAUTH_URL;
    origin = url ? new URL(url).origin : null;
  }
  return origin;
}
