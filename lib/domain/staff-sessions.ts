/**
 * Staff sessions: the one place that creates, checks and ends them. The session JWT carries only the row's id
 * (`sid`); every request that reads the session checks the row, so ending a session takes effect at the next
 * request — sign-out, a password change (the account's other sessions) and disabling the account all end sessions
 * on the server.
 */
import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { isUuid } from "@/lib/ids";
import { realTime, realTimeMs } from "./real-time";

/** A new session for `staffId` that ends `maxAgeSeconds` from now whatever the activity. Returns its id. */
export async function createStaffSession(db: Db, staffId: string, maxAgeSeconds: number): Promise<string> {
  const { id } = await db.staffSession.create({
    data: { staffId, expiresAt: new Date(realTimeMs() + maxAgeSeconds * 1000) },
    select: { id: true },
  });
  return id;
}

/** Whether the session is live: it exists for this staff member, is not revoked and has not reached its end. */
export async function isStaffSessionLive(db: Db, sessionId: unknown, staffId: unknown): Promise<boolean> {
  // Tokens from before sessions had rows carry no sid: they are no session.
  if (typeof sessionId !== "string" || typeof staffId !== "string" || !isUuid(sessionId) || !isUuid(staffId))
    return false;
  const live = await db.staffSession.count({
    where: { id: sessionId, staffId, revokedAt: null, expiresAt: { gt: realTime() } },
  });
  return live > 0;
}

/** Ends one session (sign-out). Unknown or already-ended ids are fine: sign-out is idempotent. */
export async function revokeStaffSession(db: Db, sessionId: unknown): Promise<void> {
  if (typeof sessionId !== "string" || !isUuid(sessionId)) return;
  await db.staffSession.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: realTime() } });
}

/**
 * Ends every session of an account (disabled account, reset), in the caller's transaction; `keep` names one that
 * stays (a change of one's own password ends the account's other sessions, not the one that made it).
 */
export async function revokeAllStaffSessions(tx: Tx, staffId: string, keep?: string | null): Promise<number> {
  const { count } = await tx.staffSession.updateMany({
    where: { staffId, revokedAt: null, ...(keep ? { id: { not: keep } } : {}) },
    data: { revokedAt: realTime() },
  });
  return count;
}
