/**
 * Sign-in throttling on the database, so it holds across app instances: the one place that counts failed staff
 * sign-ins per account, per client address and per (account, address) pair (rules in sign-in-throttle-rules.ts).
 * Keys exist for any e-mail, account or not, so the answers say nothing about which e-mails are staff.
 *
 * Lockout without denial of service: the account key (failures from every address) still backs off and locks,
 * which is what stops a botnet guessing one password from many addresses; but it does not hold back an attempt
 * from an address the account has signed in from before (`StaffTrustedAddress`, kept TRUSTED_DAYS). There only
 * the pair key and the address key count: a stranger elsewhere cannot keep the member out, and a guesser at the
 * member's own address is throttled by the pair key like any other. An owner can end a lock (`unlockAccount`).
 */
import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Db, Tx } from "@/lib/db/types";
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
export const pairKey = (email: string, address: string) =>
  `pair:${email.trim().toLowerCase().slice(0, 320)}|${address.slice(0, 100)}`;

/** How long an address an account signed in from stays trusted by it. */
export const TRUSTED_DAYS = 90;

const normalEmail = (email: string) => email.trim().toLowerCase().slice(0, 320);

/** Whether the account `email` signed in from `address` in the last TRUSTED_DAYS. */
export async function isTrustedAddress(db: Db, email: string, address: string): Promise<boolean> {
  const since = new Date(realTime().getTime() - TRUSTED_DAYS * 86_400_000);
  const row = await db.staffTrustedAddress.findFirst({
    where: { email: normalEmail(email), address: address.slice(0, 100), lastSignInAt: { gt: since } },
    select: { email: true },
  });
  return !!row;
}

/** When each of these accounts' lock ends (account key), for the staff page; accounts not locked are absent. */
export async function accountLocks(db: Db, emails: string[]): Promise<Map<string, Date>> {
  const now = realTime();
  const rows = await db.staffSignInThrottle.findMany({
    where: { key: { in: emails.map(accountKey) }, lockedUntil: { gt: now } },
    select: { key: true, lockedUntil: true },
  });
  return new Map(rows.map((r) => [r.key.slice("account:".length), r.lockedUntil!]));
}

/** Ends the account's lock and backoff (its account key and every pair key); returns whether one was locked. */
export async function unlockAccount(db: Db, email: string): Promise<boolean> {
  const e = normalEmail(email);
  const locked = (await accountLocks(db, [e])).has(e);
  await db.staffSignInThrottle.deleteMany({
    where: { OR: [{ key: accountKey(e) }, { key: { startsWith: `pair:${e}|` } }] },
  });
  return locked;
}

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
 * otherwise counted as a failure on every key until `signInSucceeded` gives it back. The keys in `notHolding`
 * are counted but do not hold the attempt back (the account key, from an address the account trusts).
 */
export async function beginSignInAttempt(
  prisma: PrismaClient,
  keys: string[],
  policy: ThrottlePolicy,
  notHolding: string[] = [],
): Promise<SignInAttempt> {
  return prisma.$transaction(async (tx) => {
    const now = realTime();
    const states = await lockRows(tx, keys);
    const waits = [...states.entries()]
      .filter(([key]) => !notHolding.includes(key))
      .map(([, s]) => blockedUntil(s, now, policy))
      .filter((d): d is Date => !!d);
    if (waits.length) return { allowed: false, retryAt: new Date(Math.max(...waits.map((d) => d.getTime()))) };
    for (const [key, state] of states) {
      // A key that does not hold this attempt back is left as it is while it waits (its lock stays on).
      if (notHolding.includes(key) && blockedUntil(state, now, policy)) continue;
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

/**
 * The attempt succeeded: the account (unless locked) and its pair with this address start afresh; the address gets
 * this attempt back (others' failures stay); the address becomes (or stays) one the account trusts.
 */
export async function signInSucceeded(prisma: PrismaClient, email: string, address: string) {
  await prisma.$transaction(async (tx) => {
    const now = realTime();
    // A lock of the account stays on (the member got in from an address it trusts; strangers elsewhere are still
    // held back); a count that is not a lock starts afresh.
    await tx.staffSignInThrottle.deleteMany({
      where: { key: accountKey(email), OR: [{ lockedUntil: null }, { lockedUntil: { lte: now } }] },
    });
    await tx.staffSignInThrottle.deleteMany({ where: { key: pairKey(email, address) } });
    await tx.staffSignInThrottle.updateMany({
      where: { key: addressKey(address), failures: { gt: 0 } },
      data: { failures: { decrement: 1 } },
    });
    await tx.staffUser.updateMany({ where: { email: normalEmail(email) }, data: { lastSignInAt: now } });
    const id = { email: normalEmail(email), address: address.slice(0, 100) };
    await tx.staffTrustedAddress.upsert({
      where: { email_address: id },
      create: { ...id, lastSignInAt: now },
      update: { lastSignInAt: now },
    });
  });
}
