import "server-only";
import { createHash } from "node:crypto";
import type { Db, Tx } from "@/lib/db/types";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { abortUnless, isLostRace } from "@/lib/db/statement";
import { recordHandover } from "@/lib/ops/metrics";
import { CommitUncertainError, isDatabaseUnavailable, retryRead, transactionWithRetry } from "@/lib/db/outage";
import { idempotencyConflict, uniqueViolation } from "@/lib/errors";
import { TX_OPTIONS } from "./edge";
import { IDEMPOTENCY_KEY } from "./header-names";
import { validationFailed } from "./problem";

/**
 * The one place for Idempotency-Key (API.md §1): a POST retried with the same key and the same request within
 * IDEMPOTENCY_WINDOW_MS replays the first outcome instead of acting twice, a different request under the key is
 * a 409, and of two concurrent twins one acts and the other answers as it did.
 */

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

/** The outcome stored for this key, if any; a different request under the same key is a conflict. */
export async function findOutcome(
  db: Db,
  programId: string,
  apiKeyId: string,
  key: string,
  fingerprint: string,
  legacy?: () => string,
): Promise<StoredOutcome | null> {
  const row = await db.idempotencyRecord.findUnique({
    where: { programId_apiKeyId_key: { programId, apiKeyId, key } },
  });
  if (!row || row.createdAt.getTime() < Date.now() - IDEMPOTENCY_WINDOW_MS) return null;
  if (row.requestHash !== fingerprint && row.requestHash !== legacy?.()) throw idempotencyConflict();
  return { status: row.status, body: row.body };
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
  await deleteExpired(tx, programId, apiKeyId, key);
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
  return key;
}

const deleteExpired = (db: Db, programId: string, apiKeyId: string, key: string) =>
  db.idempotencyRecord.deleteMany({
    where: { programId, apiKeyId, key, createdAt: { lt: new Date(Date.now() - IDEMPOTENCY_WINDOW_MS) } },
  });

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

// ---------------------------------------------------------------------------------------------------------------
// One-statement writes: the outcome is looked up, and stored, by the write's own statement.

/** Where a keyed request's outcome lives, with the fingerprints it must match (null: the request has no key). */
export interface OutcomeSlot {
  programId: string;
  scopeId: string;
  key: string;
  fingerprint: string;
  legacy: string;
}

export const outcomeSlot = (request: KeyedRequest): OutcomeSlot => ({
  programId: request.programId,
  scopeId: request.scopeId,
  key: request.key,
  fingerprint: requestFingerprint(request.method, request.path, request.body.value),
  legacy: legacyFingerprint(request.method, request.path, request.body.raw),
});

/** The parameters $1 to $5 of every keyed statement: the slot's, all null for a request without a key. */
export const KEYED_PARAM_COUNT = 5;
export const keyedParams = (slot: OutcomeSlot | null) => [
  slot?.programId ?? null,
  slot?.scopeId ?? null,
  slot?.key ?? null,
  slot?.fingerprint ?? null,
  slot?.legacy ?? null,
];

/** A write's part of a keyed statement (see `keyedStatement`). */
export interface StatementWrite {
  /**
   * The write's CTEs, after `prior` (the key's record, if any) and `go` (one row exactly when there is none: every
   * effect must depend on it). They define `answer` (status int, body text, "customerId" uuid, and `extras`: one
   * row when the write acted), `refusal` (why text: at most one row, why it did not) and `invariant` (ok boolean:
   * one row, false when the statement must not commit, because a concurrent write overtook it).
   */
  ctes: string;
  /** Further columns of `answer` that the caller reads. */
  extras?: string[];
}

/**
 * Wraps a write into one statement with its Idempotency-Key: an earlier outcome for the key replays (or, for another
 * request, conflicts) without acting; otherwise the write acts and its outcome is inserted under the key in the same
 * statement. Two concurrent twins both act, and the unique index makes the later one fail as a whole (its effects
 * roll back with it): `runStatement` then replays the winner.
 */
export function keyedStatement(write: StatementWrite): string {
  const extras = (write.extras ?? []).map((c) => `, a.${c}`).join("");
  return `WITH prior AS (
  SELECT r."requestHash" AS hash, r.status, r.body,
         r."createdAt" < now() - make_interval(secs => ${IDEMPOTENCY_WINDOW_MS / 1000}) AS expired
  FROM "IdempotencyRecord" r WHERE r."programId" = $1::uuid AND r."apiKeyId" = $2::uuid AND r.key = $3::text
), go AS (
  SELECT 1 AS one WHERE NOT EXISTS (SELECT 1 FROM prior)
), ${write.ctes}, stored AS (
  INSERT INTO "IdempotencyRecord" ("programId", "apiKeyId", key, "requestHash", status, body, "customerId")
  SELECT $1::uuid, $2::uuid, $3::text, $4::text, a.status, a.body, a."customerId" FROM answer a WHERE $3::text IS NOT NULL
  RETURNING 1
)
SELECT CASE WHEN p.hash IS NULL THEN coalesce(CASE WHEN a.status IS NOT NULL THEN 'done' END, (SELECT why FROM refusal), 'missing')
            WHEN p.expired THEN 'expired' WHEN p.hash IN ($4::text, $5::text) THEN 'replay' ELSE 'conflict' END AS kind,
       coalesce(p.status, a.status) AS status, coalesce(p.body, a.body) AS body,
       (SELECT count(*) FROM stored)::int AS stored, (SELECT ${abortUnless("ok")} FROM invariant) AS invariant${extras}
FROM (SELECT 1) one LEFT JOIN prior p ON true LEFT JOIN answer a ON true`;
}

/**
 * The refusals that a caller settles on its locked path rather than answering (counted: `recordHandover`). Under the
 * locked path itself they cannot occur (it locks first and settles what is due), so the count is of hand-overs.
 */
const HANDED_OVER = new Set(["race", "expiry_due", "tier_due"]);

export interface StatementRow {
  kind: string;
  status: number | null;
  body: string | null;
  [extra: string]: unknown;
}

/** A write's outcome as the client gets it; `replayed`: an earlier request's. */
export interface Outcome {
  status: number;
  body: string | null;
  replayed: boolean;
}

/** What a keyed statement came to: an outcome (`row` has the answer's extras when it acted), or why it did not act. */
export type StatementResult = { outcome: Outcome; row: StatementRow } | { refusal: string };

/**
 * Runs a keyed statement (built by `keyedStatement`, with `keyedParams(slot)` first) and settles what the key
 * decides: a replay, a 409 for another request under the key, the winner's outcome when a concurrent twin
 * committed first, an expired record replaced. A lost connection is settled as in `runIdempotently`: the record
 * says whether the statement committed; without a key it is not retried (it may have committed). A refusal
 * (`insufficient_balance`, `race`, …) is the caller's to turn into its error or its locked path.
 */
export async function runStatement(
  database: Db,
  slot: OutcomeSlot | null,
  statement: () => Promise<StatementRow[]>,
): Promise<StatementResult> {
  const winner = async () => {
    if (!slot) return null;
    const { programId, scopeId, key, fingerprint, legacy } = slot;
    return retryRead(() => findOutcome(database, programId, scopeId, key, fingerprint, () => legacy));
  };
  for (let attempt = 0; ; attempt++) {
    let row: StatementRow | undefined;
    try {
      [row] = await statement();
    } catch (err) {
      // The statement found that a concurrent write overtook it (lib/db/statement.ts): its caller takes the locked path.
      if (isLostRace(err)) recordHandover("race");
      const clash = uniqueViolation(err);
      if (slot && clash?.constraint?.includes("IdempotencyRecord")) {
        const first = await winner();
        if (first) return { outcome: { ...first, replayed: true }, row: { kind: "replay", ...first } };
      }
      if (slot && attempt === 0 && isDatabaseUnavailable(err)) {
        const stored = await winner();
        if (stored) return { outcome: { ...stored, replayed: false }, row: { kind: "done", ...stored } };
        continue;
      }
      throw err;
    }
    if (!row) throw new Error("a keyed statement returned no row");
    switch (row.kind) {
      case "done":
      case "replay":
        return { outcome: { status: row.status!, body: row.body, replayed: row.kind === "replay" }, row };
      case "conflict":
        throw idempotencyConflict();
      case "expired":
        // Rare: the key is reused after its window. The old record goes, and the statement runs again.
        if (slot && attempt === 0) {
          await deleteExpired(database, slot.programId, slot.scopeId, slot.key);
          continue;
        }
        return { refusal: "race" };
      default:
        if (HANDED_OVER.has(row.kind)) recordHandover(row.kind);
        return { refusal: row.kind };
    }
  }
}
