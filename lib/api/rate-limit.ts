/**
 * Token bucket per API key, in this process's memory. With several app instances each enforces the
 * limit on its own share of traffic; a shared store would be needed for an exact cluster-wide limit.
 */
interface Bucket {
  tokens: number;
  updatedAt: number;
}

const buckets = new Map<string, Bucket>();

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset) or, when refused, until one token is back. */
  resetSeconds: number;
  retryAfterSeconds: number;
}

export function takeToken(keyId: string, perSecond: number, burst: number, now = Date.now()): RateDecision {
  const bucket = buckets.get(keyId) ?? { tokens: burst, updatedAt: now };
  bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
  bucket.updatedAt = now;
  const allowed = bucket.tokens >= 1;
  if (allowed) bucket.tokens -= 1;
  buckets.set(keyId, bucket);
  return {
    allowed,
    limit: perSecond,
    remaining: Math.floor(bucket.tokens),
    resetSeconds: Math.ceil((burst - bucket.tokens) / perSecond),
    retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)),
  };
}
