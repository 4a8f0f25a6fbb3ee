import "server-only";
import type { RawQueries } from "@/lib/db/types";
import { loadConfig } from "@/lib/config";
import { databaseTarget } from "@/lib/db/adapter";

/**
 * The one place for the rate limits' token buckets (docs/operating.md "Security and operations", API.md §1): a bucket
 * of `burst` tokens per API key (or customer on /me), refilled at `perSecond`; a request takes one token.
 *
 * Where the buckets live:
 *  - "database" (the default with a PostgreSQL server): one row per bucket in "RateBucket", refilled and taken
 *    in ONE atomic statement (TAKE_TOKEN_SQL) by the database's clock. Every app instance on that database
 *    therefore draws from the same bucket, so the limit holds for the cluster, not once per instance. A busy key's
 *    tokens are taken a few at a time and handed out by the instance that took them (`LeasedBuckets`), so most
 *    requests cost no statement; the row is unlogged (a crash or failover refills every bucket).
 *  - "memory" (the default with embedded PGlite, which is one process anyway): a Map in this process.
 * RATE_LIMIT_STORE=memory|database overrides the default (e.g. the bench compares both).
 */

export type RateStore = "memory" | "database";

function configuredStore(env: NodeJS.ProcessEnv = process.env): RateStore {
  const value = loadConfig(env).RATE_LIMIT_STORE;
  if (value) return value;
  return databaseTarget(env).kind === "postgres" ? "database" : "memory";
}

const STORE: RateStore = configuredStore();

export interface RateDecision {
  allowed: boolean;
  /** The bucket size: the most requests allowed at once (RateLimit-Limit, the policy's `q`). */
  limit: number;
  /** Whole tokens left, 0 ≤ remaining ≤ limit. */
  remaining: number;
  /** The policy's window `w`: seconds to refill an empty bucket (≥ 1). */
  windowSeconds: number;
  /** Seconds until the bucket is full again (RateLimit-Reset, `t`). */
  resetSeconds: number;
  /** When refused: seconds until one token is back (Retry-After, ≥ 1). */
  retryAfterSeconds: number;
}

/** The decision for a bucket holding `tokens` (fractional) after this request took one or was refused. */
export function decide(allowed: boolean, tokens: number, perSecond: number, burst: number): RateDecision {
  const left = Math.max(0, Math.min(burst, tokens));
  return {
    allowed,
    limit: burst,
    remaining: Math.floor(left),
    windowSeconds: Math.max(1, Math.ceil(burst / perSecond)),
    resetSeconds: Math.ceil((burst - left) / perSecond),
    retryAfterSeconds: Math.max(1, Math.ceil((1 - left) / perSecond)),
  };
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const buckets = new Map<string, Bucket>();

/** The in-process bucket: exact for one process, N times the limit behind N instances. */
export function takeToken(keyId: string, perSecond: number, burst: number, now = Date.now()): RateDecision {
  const bucket = buckets.get(keyId) ?? { tokens: burst, updatedAt: now };
  bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.updatedAt) / 1000) * perSecond);
  bucket.updatedAt = now;
  const allowed = bucket.tokens >= 1;
  if (allowed) bucket.tokens -= 1;
  buckets.set(keyId, bucket);
  return decide(allowed, bucket.tokens, perSecond, burst);
}

/**
 * Refill and take in one statement, so concurrent requests from any instance serialise on the row lock and
 * none can spend a token another already took. A new bucket starts full. $1 bucket id, $2 tokens per second,
 * $3 burst, $4 tokens wanted (1, or a lease: see `LeasedBuckets`); it takes as many whole tokens as it has, up to $4
 * (`granted`, 0 when refused). EXCLUDED.at is now. Every right-hand side reads the old row.
 */
const REFILLED = `LEAST($3::float8, b.tokens + GREATEST(0, EXCLUDED.at - b.at) * $2::float8)`;
const GRANTED = `LEAST($4::int, floor(${REFILLED}))::int`;
export const TAKE_TOKEN_SQL = `
INSERT INTO "RateBucket" AS b (id, tokens, at, allowed, granted)
VALUES ($1, $3::float8 - LEAST($4::int, floor($3::float8)), extract(epoch FROM statement_timestamp())::float8, true,
        LEAST($4::int, floor($3::float8))::int)
ON CONFLICT (id) DO UPDATE SET
  tokens = ${REFILLED} - ${GRANTED},
  at = GREATEST(b.at, EXCLUDED.at),
  allowed = ${REFILLED} >= 1,
  granted = ${GRANTED}
RETURNING tokens, allowed, granted`;

/** The shared bucket of TAKE_TOKEN_SQL: one token, or up to `want` (a lease); `granted` says how many it took. */
export async function takeSharedToken(
  database: RawQueries,
  bucketId: string,
  perSecond: number,
  burst: number,
  want = 1,
): Promise<RateDecision & { granted: number; tokens: number }> {
  const [row] = await database.$queryRawUnsafe<{ tokens: number; allowed: boolean; granted: number }[]>(
    TAKE_TOKEN_SQL,
    bucketId,
    perSecond,
    burst,
    want,
  );
  const tokens = Number(row!.tokens);
  const granted = Number(row!.granted);
  // The tokens this request did not take itself stay with the caller's lease: the client's view counts them as left.
  return { ...decide(row!.allowed, tokens + Math.max(0, granted - 1), perSecond, burst), granted, tokens };
}

/**
 * Leases: an instance whose clients keep one key busy takes that key's tokens from the shared bucket several at a time
 * and hands them to its coming requests without a statement each (the shared bucket's statement was one round trip
 * of every /v1 request, and all of one key's requests queue on its row). Nothing is ever let through that the shared
 * bucket did not give: every token a request takes was taken from the row first, so the limit holds for the cluster
 * exactly as before, never above it. What a lease can cost is the other way: tokens one instance holds are not
 * available to another for at most LEASE_MS, after which unused ones are dropped. So leases stay small: sized by the
 * instance's demand (the first request of a bucket takes 1; a lease used up within LEASE_MS doubles the next; one
 * that lapsed makes the next as large as what was used of it) and never more than a twentieth of the burst, so a key
 * whose burst is below 40 takes its tokens one per request as before, and a busy key loses at most 5% of its burst
 * per instance and LEASE_MS to a lease that lapsed.
 */
export const LEASE_MS = 200;
export const LEASE_SHARE = 1 / 20;

interface Lease {
  /** Tokens taken from the shared bucket and not handed out yet. */
  left: number;
  /** Handed out from the current lease. */
  used: number;
  size: number;
  until: number;
  /** The shared bucket's tokens when the lease was taken (for the headers). */
  shared: number;
  pending: Promise<RateDecision> | null;
}

export class LeasedBuckets {
  private readonly leases = new Map<string, Lease>();

  constructor(private readonly now: () => number = Date.now) {}

  async take(database: RawQueries, bucketId: string, perSecond: number, burst: number): Promise<RateDecision> {
    const cap = Math.max(1, Math.floor(burst * LEASE_SHARE));
    let lease = this.leases.get(bucketId);
    if (!lease) {
      if (this.leases.size >= 10_000) this.leases.clear(); // unknown keys must not grow memory without bound
      lease = { left: 0, used: 0, size: 0, until: 0, shared: 0, pending: null };
      this.leases.set(bucketId, lease);
    }
    for (;;) {
      const now = this.now();
      if (lease.left >= 1 && now < lease.until) {
        lease.left -= 1;
        lease.used += 1;
        return decide(true, Math.min(burst, lease.shared + lease.left), perSecond, burst);
      }
      // A lease on its way: wait for it and take from it (requests arriving together share one statement).
      if (lease.pending) {
        const decision = await lease.pending;
        if (!decision.allowed) return decision;
        continue;
      }
      const want = Math.min(
        cap,
        lease.size === 0 ? 1 : lease.left >= 1 ? Math.max(1, lease.used) : Math.max(1, lease.size * 2),
      );
      const l = lease;
      l.pending = takeSharedToken(database, bucketId, perSecond, burst, want)
        .then((taken) => {
          l.left = taken.granted;
          l.used = 0;
          l.size = taken.granted;
          l.until = this.now() + LEASE_MS;
          l.shared = taken.tokens;
          return taken;
        })
        .finally(() => (l.pending = null));
      const decision = await l.pending;
      if (!decision.allowed) return decision;
    }
  }
}

const leased = new LeasedBuckets();

/** A token from this deployment's store (see the header). */
export function takeTokenFrom(
  database: RawQueries,
  bucketId: string,
  perSecond: number,
  burst: number,
): RateDecision | Promise<RateDecision> {
  return STORE === "database"
    ? leased.take(database, bucketId, perSecond, burst)
    : takeToken(bucketId, perSecond, burst);
}
