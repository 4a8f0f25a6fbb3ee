import "server-only";
import type { Db } from "@/lib/db/types";
import { loadConfig } from "@/lib/config";
import { databaseTarget } from "@/lib/db/adapter";

/**
 * The one place for the rate limits' token buckets (README "Security and operations", API.md §1): a bucket of
 * `burst` tokens per API key (or customer on /me), refilled at `perSecond`; a request takes one token.
 *
 * Where the buckets live:
 *  - "database" (the default with a PostgreSQL server): one row per bucket in "RateBucket", refilled and taken
 *    in ONE atomic statement (TAKE_TOKEN_SQL) by the database's clock. Every app instance on that database
 *    therefore draws from the same bucket, so the limit holds for the cluster, not once per instance.
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
 * none can spend a token another already took. A new bucket starts full (burst - 1 after this request).
 * $1 bucket id, $2 tokens per second, $3 burst; EXCLUDED.at is now. Every right-hand side reads the old row.
 */
const REFILLED = `LEAST($3::float8, b.tokens + GREATEST(0, EXCLUDED.at - b.at) * $2::float8)`;
export const TAKE_TOKEN_SQL = `
INSERT INTO "RateBucket" AS b (id, tokens, at, allowed)
VALUES ($1, $3::float8 - 1, extract(epoch FROM statement_timestamp())::float8, true)
ON CONFLICT (id) DO UPDATE SET
  tokens = ${REFILLED} - CASE WHEN ${REFILLED} >= 1 THEN 1 ELSE 0 END,
  at = GREATEST(b.at, EXCLUDED.at),
  allowed = ${REFILLED} >= 1
RETURNING tokens, allowed`;

/** The shared bucket of TAKE_TOKEN_SQL. */
export async function takeSharedToken(
  database: Db,
  bucketId: string,
  perSecond: number,
  burst: number,
): Promise<RateDecision> {
  const [row] = await database.$queryRawUnsafe<{ tokens: number; allowed: boolean }[]>(
    TAKE_TOKEN_SQL,
    bucketId,
    perSecond,
    burst,
  );
  return decide(row!.allowed, Number(row!.tokens), perSecond, burst);
}

/** A token from this deployment's store (see the header). */
export function takeTokenFrom(
  database: Db,
  bucketId: string,
  perSecond: number,
  burst: number,
): RateDecision | Promise<RateDecision> {
  return STORE === "database"
    ? takeSharedToken(database, bucketId, perSecond, burst)
    : takeToken(bucketId, perSecond, burst);
}
