/**
 * The one place for an API key's rate-limit bounds and defaults (a token bucket, lib/api/rate-limit.ts):
 * `perSecond` sustained, `burst` at once. Without a burst a key gets two seconds' worth, so 50/s gives the
 * default burst of 100, and 1/s gives 2 (not 100). Constants only: the dashboard's forms import it.
 */
export const RATE_LIMIT = { defaultPerSec: 50, maxPerSec: 1_000_000, maxBurst: 2_000_000 } as const;

export const defaultBurst = (perSecond: number) => Math.min(RATE_LIMIT.maxBurst, perSecond * 2);
