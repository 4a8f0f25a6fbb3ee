import "server-only";
import { createHash } from "node:crypto";
import type { Tx } from "@/lib/db/types";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { CommitUncertainError, retryRead, transactionWithRetry } from "@/lib/db/outage";
import {
  deleteExpiredOutcome,
  findOutcome,
  type NewOutcome,
  type OutcomeSlot,
  type StoredOutcome,
} from "@/lib/db/keyed-statement";
import { uniqueViolation } from "@/lib/errors";
import { TX_OPTIONS } from "./edge";
import { IDEMPOTENCY_KEY } from "@/lib/header-names";
import { validationFailed } from "./problem";
import { isStorableText, TEXT_RULE_MESSAGE } from "./text-rule";

/**
 * The one place for Idempotency-Key (API.md §1; the record and the one-statement writes: lib/db/keyed-statement.ts):
 * a POST retried with the same key and the same request within IDEMPOTENCY_WINDOW_MS replays the first outcome
 * instead of acting twice, a different request under the key is a 409, and of two concurrent twins one acts and the
 * other answers as it did.
 */

/**
 * A request's identity for its Idempotency-Key: method, path and the body's meaning. The body is the parsed JSON in
 * canonical form (keys sorted, no whitespace, numbers as JSON.stringify writes them: RFC 8785's rules), so a client
 * that re-serialises the same JSON on retry (another key order, spacing, `1.0` for `1`) gets the replay, not a 409.
 * A body that was left out (`undefined`) and `{}` differ only where the route reads an omitted body as `{}`.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash("sha256")
    .update(`${method} ${path}\n${body === undefined ? "" : canonicalJson(body)}`)
    .digest("hex");
}

/**
 * The fingerprint over the body's bytes that records stored before canonical fingerprints carry. Accepted as well
 * so that a retry of a request made before the upgrade still replays; useless once IDEMPOTENCY_WINDOW_MS has
 * passed since the upgrade, and then removable.
 */
export function legacyFingerprint(method: string, path: string, rawBody: string): string {
  return createHash("sha256").update(`${method} ${path}\n${rawBody}`).digest("hex");
}

/** JSON text with object keys sorted (by UTF-16 code units) at every level and no whitespace. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const object = value as Record<string, unknown>;
    return `{${Object.keys(object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Records the outcome in the caller's transaction, so the effect and its record commit together. A concurrent
 * request with the same key blocks on the unique index and then fails, and its caller replays this outcome.
 */
export async function storeOutcome(
  tx: Tx,
  programId: string,
  apiKeyId: string,
  key: string,
  fingerprint: string,
  outcome: NewOutcome,
) {
  // An expired record for the key is replaced rather than blocking reuse forever.
  await deleteExpiredOutcome(tx, programId, apiKeyId, key);
  await tx.idempotencyRecord.create({
    data: {
      programId,
      apiKeyId,
      key,
      requestHash: fingerprint,
      status: outcome.status,
      body: outcome.body,
      customerId: outcome.customerId,
    },
  });
}

/** The Idempotency-Key of a POST (other methods are idempotent already), or null; its length is checked. */
export function idempotencyKeyOf(req: Request): string | null {
  const key = req.method === "POST" ? req.headers.get(IDEMPOTENCY_KEY) : null;
  if (key !== null && (key.length < 1 || key.length > 255)) {
    throw validationFailed([{ path: "Idempotency-Key", message: "must be 1 to 255 characters" }]);
  }
  // Stored with the outcome: the edge's text rule (a header cannot carry these today; the rule holds regardless).
  if (key !== null && !isStorableText(key))
    throw validationFailed([{ path: "Idempotency-Key", message: TEXT_RULE_MESSAGE }]);
  return key;
}

/** One keyed request: its program, who sent it (the key's scope), the key, and the request it must match. */
export interface KeyedRequest {
  programId: string;
  scopeId: string;
  key: string;
  method: string;
  path: string;
  body: { raw: string; value: unknown };
}

/**
 * Runs `work` in one transaction at most once per key, storing its outcome in that same transaction; `replayed`
 * says the outcome is an earlier request's (the caller marks the answer so).
 */
export async function runIdempotently(
  database: PrismaClient,
  request: KeyedRequest,
  work: (tx: Tx) => Promise<NewOutcome>,
): Promise<StoredOutcome & { replayed: boolean }> {
  const { programId, scopeId, key, method, path, body } = request;
  const fingerprint = requestFingerprint(method, path, body.value);
  const legacy = () => legacyFingerprint(method, path, body.raw);
  const previous = await retryRead(() => findOutcome(database, programId, scopeId, key, fingerprint, legacy));
  if (previous) return { ...previous, replayed: true };
  const attempt = () =>
    transactionWithRetry(
      database,
      async (tx) => {
        const outcome = await work(tx);
        await storeOutcome(tx, programId, scopeId, key, fingerprint, outcome);
        return { status: outcome.status, body: outcome.body, replayed: false };
      },
      TX_OPTIONS,
    );
  try {
    return await attempt().catch(async (err) => {
      if (!(err instanceof CommitUncertainError)) throw err;
      // The connection died during COMMIT. The outcome is stored in the same transaction, so its presence
      // says whether it committed: answer with it (this client never saw it), or run once more; a twin
      // still committing makes that attempt a unique violation, handled below.
      const stored = await retryRead(() => findOutcome(database, programId, scopeId, key, fingerprint));
      return stored ? { ...stored, replayed: false } : attempt();
    });
  } catch (err) {
    // A concurrent twin committed first: answer as it did.
    const clash = uniqueViolation(err);
    if (clash?.constraint?.includes("IdempotencyRecord")) {
      const winner = await retryRead(() => findOutcome(database, programId, scopeId, key, fingerprint, legacy));
      if (winner) return { ...winner, replayed: true };
    }
    throw err;
  }
}

export const outcomeSlot = (request: KeyedRequest): OutcomeSlot => ({
  programId: request.programId,
  scopeId: request.scopeId,
  key: request.key,
  fingerprint: requestFingerprint(request.method, request.path, request.body.value),
  legacy: legacyFingerprint(request.method, request.path, request.body.raw),
});
