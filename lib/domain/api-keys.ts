import "server-only";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { config } from "@/lib/config";
import type { Db } from "@/lib/db/types";
import { notFound, validationFailed } from "@/lib/errors";
import { defaultBurst, RATE_LIMIT } from "./api-key-limits";
import { requireProgram } from "./programs";
import { realTime, realTimeMs } from "./real-time";

export { RATE_LIMIT } from "./api-key-limits";

/** A live program's keys start `lk_live_`, a test program's `lk_test_` (fixed by the program's mode at creation). */
export const LIVE_KEY_PREFIX = "lk_live_";
export const TEST_KEY_PREFIX = "lk_test_";
const KEY_PREFIX_LENGTH = LIVE_KEY_PREFIX.length;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export interface ApiKeyIdentity {
  id: string;
  programId: string;
  rateLimitPerSec: number;
  rateLimitBurst: number;
  /** Whether the key's program is a test program (fixed at its creation, so the cached lookup stays true). */
  programTest: boolean;
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

function randomSecret(test: boolean): string {
  // 32 characters of base62 (~190 bits); the modulo bias of 256 % 62 is irrelevant at this length.
  const bytes = randomBytes(32);
  let out = test ? TEST_KEY_PREFIX : LIVE_KEY_PREFIX;
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

/** Creates a key and returns its secret: the only time the secret exists outside the caller's hands. */
export async function createApiKey(
  db: Db,
  input: { programId: string; name: string; rateLimitPerSec?: number; rateLimitBurst?: number },
): Promise<{ id: string; key: string; prefix: string; rateLimitPerSec: number; rateLimitBurst: number }> {
  const program = await requireProgram(db, input.programId, { test: true });
  const key = randomSecret(program.test);
  const prefix = key.slice(0, KEY_PREFIX_LENGTH + 6);
  const rate = input.rateLimitPerSec ?? RATE_LIMIT.defaultPerSec;
  const burst = input.rateLimitBurst ?? defaultBurst(rate);
  const within = (n: number, max: number) => Number.isInteger(n) && n >= 1 && n <= max;
  if (!within(rate, RATE_LIMIT.maxPerSec)) throw invalidRateLimit("rateLimitPerSec", RATE_LIMIT.maxPerSec);
  if (!within(burst, RATE_LIMIT.maxBurst)) throw invalidRateLimit("rateLimitBurst", RATE_LIMIT.maxBurst);
  const created = await db.apiKey.create({
    data: {
      programId: input.programId,
      name: input.name,
      prefix,
      secretHash: hashSecret(key),
      rateLimitPerSec: rate,
      rateLimitBurst: burst,
    },
    select: { id: true },
  });
  return { id: created.id, key, prefix, rateLimitPerSec: rate, rateLimitBurst: burst };
}

/**
 * Changes a key's token bucket (rate and burst, bounds in api-key-limits.ts); a burst left out becomes the default
 * for the new rate. Takes effect at once in this instance and within API_KEY_CACHE_MS in the others; a bucket
 * holding more tokens than the new burst is cut down to it at its next request (lib/api/rate-limit.ts).
 */
export async function setApiKeyLimits(
  db: Db,
  id: string,
  input: { rateLimitPerSec: number; rateLimitBurst?: number },
): Promise<{ id: string; rateLimitPerSec: number; rateLimitBurst: number }> {
  const rate = input.rateLimitPerSec;
  const burst = input.rateLimitBurst ?? defaultBurst(rate);
  const within = (n: number, max: number) => Number.isInteger(n) && n >= 1 && n <= max;
  if (!within(rate, RATE_LIMIT.maxPerSec)) throw invalidRateLimit("rateLimitPerSec", RATE_LIMIT.maxPerSec);
  if (!within(burst, RATE_LIMIT.maxBurst)) throw invalidRateLimit("rateLimitBurst", RATE_LIMIT.maxBurst);
  const updated = await db.apiKey.update({
    where: { id },
    data: { rateLimitPerSec: rate, rateLimitBurst: burst },
    select: { id: true, rateLimitPerSec: true, rateLimitBurst: true },
  });
  forget(id);
  return updated;
}

/**
 * Drops this instance's cached lookups of a key, so its next request reads the row again; a lookup already in flight
 * is not cached when it lands (it may have read the row before the change).
 */
function forget(id: string) {
  for (const [hash, entry] of keyCache) if (entry.identity?.id === id) keyCache.delete(hash);
  lookups.clear();
  generation++;
}

export async function revokeApiKey(db: Db, id: string): Promise<{ id: string; revokedAt: Date }> {
  const existing = await db.apiKey.findUnique({ where: { id }, select: { revokedAt: true } });
  if (!existing) throw notFound("API key");
  if (existing.revokedAt) return { id, revokedAt: existing.revokedAt };
  const updated = await db.apiKey.update({
    where: { id },
    data: { revokedAt: realTime() },
    select: { revokedAt: true },
  });
  forget(id);
  return { id, revokedAt: updated.revokedAt! };
}

/**
 * Each instance remembers a key's lookup for a moment: the lookup is one of the two queries of a read, and
 * it is the same for every request of a busy integrator. A revocation therefore reaches every instance
 * within API_KEY_CACHE_MS (at once in the instance that revoked).
 */
const keyCache = new Map<string, { identity: ApiKeyIdentity | null; until: number }>();
/**
 * The lookups in flight, by hash: the requests that find a key's entry expired together (every connection of a busy
 * integrator, at the same moment) share one lookup instead of each reading the row (bench/README.md).
 */
const lookups = new Map<string, Promise<ApiKeyIdentity | null>>();
/** Bumped by `forget`: a lookup that started before it is not cached. */
let generation = 0;

const lastTouched = new Map<string, number>();
const TOUCH_EVERY_MS = 60_000;

/** The active key for a presented secret, or null. Records lastUsedAt at most once a minute per key and process. */
export async function findActiveKey(db: Db, secret: string): Promise<ApiKeyIdentity | null> {
  if (!(secret.startsWith(LIVE_KEY_PREFIX) || secret.startsWith(TEST_KEY_PREFIX)) || secret.length > 128) return null;
  const hash = hashSecret(secret);
  const now = realTimeMs();
  const cached = keyCache.get(hash);
  if (cached && cached.until > now) return cached.identity;
  let lookup = lookups.get(hash);
  if (!lookup) {
    const started = generation;
    const settled = () => {
      if (lookups.get(hash) === lookup) lookups.delete(hash);
    };
    lookup = lookUp(db, hash, now).then(
      (identity) => {
        settled();
        if (started === generation) {
          if (keyCache.size >= 10_000) keyCache.clear(); // unknown keys must not grow memory without bound
          keyCache.set(hash, { identity, until: now + config().API_KEY_CACHE_MS });
        }
        return identity;
      },
      (err: unknown) => {
        settled();
        throw err;
      },
    );
    lookups.set(hash, lookup);
  }
  return lookup;
}

async function lookUp(db: Db, hash: string, now: number): Promise<ApiKeyIdentity | null> {
  const row = await db.apiKey.findUnique({
    where: { secretHash: hash },
    select: {
      id: true,
      programId: true,
      secretHash: true,
      revokedAt: true,
      rateLimitPerSec: true,
      rateLimitBurst: true,
      program: { select: { test: true } },
    },
  });
  if (!row || row.revokedAt) return null;
  // The index lookup already matched the hash; compare again in constant time so no timing path depends on the secret.
  if (!timingSafeEqual(Buffer.from(row.secretHash), Buffer.from(hash))) return null;
  if ((lastTouched.get(row.id) ?? 0) + TOUCH_EVERY_MS < now) {
    lastTouched.set(row.id, now);
    db.apiKey
      .update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } })
      .catch(() => lastTouched.delete(row.id));
  }
  return {
    id: row.id,
    programId: row.programId,
    rateLimitPerSec: row.rateLimitPerSec,
    rateLimitBurst: row.rateLimitBurst,
    programTest: row.program.test,
  };
}

const invalidRateLimit = (path: string, max: number) =>
  validationFailed([{ path, message: `must be a whole number from 1 to ${max.toLocaleString("en-US")}` }]);
