import { createHash } from "node:crypto";
import type { Db, Tx } from "@/lib/db/types";
import { AppError } from "@/lib/errors";

export interface StoredOutcome {
  status: number;
  body: string | null;
}

/** An outcome to store, with the customer it concerns: erasing that customer deletes it (lib/domain/deletion.ts). */
export interface NewOutcome extends StoredOutcome {
  customerId: string | null;
}

/** Same key within this window and same request: replay; after it the key may be reused. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export function requestFingerprint(method: string, path: string, body: string): string {
  return createHash("sha256").update(`${method} ${path}\n${body}`).digest("hex");
}

const conflictError = () =>
  new AppError(409, "idempotency_conflict", "This Idempotency-Key was already used with a different request.");

/** The outcome stored for this key, if any; a different request under the same key is a conflict. */
export async function findOutcome(db: Db, apiKeyId: string, key: string, fingerprint: string): Promise<StoredOutcome | null> {
  const row = await db.idempotencyRecord.findUnique({ where: { apiKeyId_key: { apiKeyId, key } } });
  if (!row || row.createdAt.getTime() < Date.now() - IDEMPOTENCY_WINDOW_MS) return null;
  if (row.requestHash !== fingerprint) throw conflictError();
  return { status: row.status, body: row.body };
}

/**
 * Records the outcome in the caller's transaction, so the effect and its record commit together. A concurrent
 * request with the same key blocks on the unique index and then fails, and its caller replays this outcome.
 */
export async function storeOutcome(tx: Tx, apiKeyId: string, key: string, fingerprint: string, outcome: NewOutcome) {
  // An expired record for the key is replaced rather than blocking reuse forever.
  await tx.idempotencyRecord.deleteMany({
    where: { apiKeyId, key, createdAt: { lt: new Date(Date.now() - IDEMPOTENCY_WINDOW_MS) } },
  });
  await tx.idempotencyRecord.create({
    data: { apiKeyId, key, requestHash: fingerprint, status: outcome.status, body: outcome.body, customerId: outcome.customerId },
  });
}
