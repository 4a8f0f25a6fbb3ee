/**
 * Sign-in throttling on the database, so it holds across app instances: the one place that counts failed staff
 * sign-ins per account and per client address (rules in sign-in-throttle-rules.ts). Keys exist for any e-mail,
 * account or not, so the answers say nothing about which e-mails are staff.
 */
import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Tx } from "@/lib/db/types";
import { realTime } from "./real-time";
import {
  blockedUntil,
  failuresWithAttempt,
  lockAfter,
  type ThrottlePolicy,
  type ThrottleState,
} from "./sign-in-throttle-rules";

export const accountKey = (email: string) => `account:${email.trim().toLowerCase().slice(0, 320)}`;
export const addressKey = (address: string) => `address:${address.slice(0, 100)}`;

// A row per key before locking it, so concurrent attempts on a new key queue on the same row lock.
const ENSURE_SQL = `INSERT INTO "StaffSignInThrottle" ("key", "failures", "lastFailureAt") VALUES ($1, 0, 'epoch') ON CONFLICT ("key") DO NOTHING`;
const LOCK_SQL = `SELECT "key", "failures", "lastFailureAt", "lockedUntil" FROM "StaffSignInThrottle" WHERE "key" = $1 FOR UPDATE`;

async function lockRows(tx: Tx, keys: string[]): Promise<Map<string, ThrottleState>> {
  const states = new Map<string, ThrottleState>();
  // Sorted: two attempts lock the same keys in the same order, never deadlocking.
  for (const key of [...new Set(keys)].sort()) {
    await tx.$executeRawUnsafe(ENSURE_SQL, key);
    const [row] = await tx.$queryRawUnsafe<ThrottleState[]>(LOCK_SQL, key);
    states.set(key, row!);
  }
  return states;
}

export type SignInAttempt = { allowed: true } | { allowed: false; retryAt: Date };

/**
 * Starts an attempt: refused while any key waits (backoff or lock) — a refused attempt changes nothing —
 * otherwise counted as a failure on every key until `signInSucceeded` gives it back.
 */
export async function beginSignInAttempt(
  prisma: PrismaClient,
  keys: string[],
  policy: ThrottlePolicy,
): Promise<SignInAttempt> {
  return prisma.$transaction(async (tx) => {
    const now = realTime();
    const states = await lockRows(tx, keys);
    const waits = [...states.values()].map((s) => blockedUntil(s, now, policy)).filter((d): d is Date => !!d);
    if (waits.length) return { allowed: false, retryAt: new Date(Math.max(...waits.map((d) => d.getTime()))) };
    for (const [key, state] of states) {
      await tx.staffSignInThrottle.update({
        where: { key },
        data: { failures: failuresWithAttempt(state, now), lastFailureAt: now, lockedUntil: null },
      });
    }
    return { allowed: true };
  });
}

/** The attempt failed: keys that reached the lock threshold are locked. Returns each key's count and lock. */
export async function signInFailed(prisma: PrismaClient, keys: string[], policy: ThrottlePolicy) {
  return prisma.$transaction(async (tx) => {
    const now = realTime();
    const states = await lockRows(tx, keys);
    const outcome: { key: string; failures: number; lockedUntil: Date | null }[] = [];
    for (const [key, state] of states) {
      const lockedUntil = state.lockedUntil ? null : lockAfter(state.failures, now, policy);
      // The backoff runs from the answer, not from the start of the attempt (bcrypt takes a while).
      await tx.staffSignInThrottle.update({
        where: { key },
        data: { lastFailureAt: now, ...(lockedUntil ? { lockedUntil } : {}) },
      });
      outcome.push({ key, failures: state.failures, lockedUntil });
    }
    return outcome;
  });
}

/** The attempt succeeded: the account starts afresh; the address gets this attempt back (others' failures stay). */
export async function signInSucceeded(prisma: PrismaClient, account: string, address: string) {
  await prisma.$transaction(async (tx) => {
    await tx.staffSignInThrottle.deleteMany({ where: { key: account } });
    await tx.staffSignInThrottle.updateMany({
      where: { key: address, failures: { gt: 0 } },
      data: { failures: { decrement: 1 } },
    });
  });
}
