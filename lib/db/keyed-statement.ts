import "server-only";
import type { Db } from "./types";
import { abortUnless, isLostRace } from "./statement";
import { int, params, raw, sql, type Sql } from "./sql";
import { isDatabaseUnavailable, retryRead } from "./outage";
import { recordHandover } from "@/lib/ops/metrics";
import { idempotencyConflict, uniqueViolation } from "@/lib/errors";

/**
 * Keyed statements: a write and its Idempotency-Key record (API.md §1) in ONE statement, outside any interactive
 * transaction. The record holds what the client was answered (a status and a body), so this layer stores an
 * outcome, but it never decides one: a write's CTEs say what changed (lib/domain), and the caller that composes the
 * statement says how that is answered (lib/api).
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

/** Removes the key's record once its window has passed, so that the key can be used again. */
export const deleteExpiredOutcome = (db: Db, programId: string, apiKeyId: string, key: string) =>
  db.idempotencyRecord.deleteMany({
    where: { programId, apiKeyId, key, createdAt: { lt: new Date(Date.now() - IDEMPOTENCY_WINDOW_MS) } },
  });

/** Where a keyed request's outcome lives, with the fingerprints it must match (null: the request has no key). */
export interface OutcomeSlot {
  programId: string;
  scopeId: string;
  key: string;
  fingerprint: string;
  legacy: string;
}

/** The parameters $1 to $5 of every keyed statement: the slot's, all null for a request without a key. */
const SLOT = params(["programId", "scopeId", "key", "fingerprint", "legacy"] as const);
export const KEYED_PARAM_COUNT = 5;
export const keyedParams = (slot: OutcomeSlot | null) =>
  SLOT.values({
    programId: slot?.programId ?? null,
    scopeId: slot?.scopeId ?? null,
    key: slot?.key ?? null,
    fingerprint: slot?.fingerprint ?? null,
    legacy: slot?.legacy ?? null,
  });
const k = SLOT.sql;

/** A write's part of a keyed statement (see `keyedStatement`). */
export interface StatementWrite {
  /**
   * The write's CTEs, after `prior` (the key's record, if any) and `go` (one row exactly when there is none: every
   * effect must depend on it). They define `result` (one row when the write acted: "customerId" uuid, the customer
   * the outcome is filed under, and what the answer and the caller read), `refusal` (why text: at most one row, why
   * it did not act) and `invariant` (ok boolean: one row, false when the statement must not commit, because a
   * concurrent write overtook it).
   */
  ctes: Sql;
  /** Columns of `result` that the caller reads from the statement's row (constant names). */
  extras?: string[];
}

/** How a write that acted is answered: a status and a body (SQL over `r`, the write's `result` row). */
export interface StatementAnswer {
  status: number;
  body: Sql;
}

/**
 * Wraps a write into one statement with its Idempotency-Key: an earlier outcome for the key replays (or, for another
 * request, conflicts) without acting; otherwise the write acts and its answer is inserted under the key in the same
 * statement. Two concurrent twins both act, and the unique index makes the later one fail as a whole (its effects
 * roll back with it): `runStatement` then replays the winner. Without `answer` (a write of the locked path, which
 * has no key) the statement answers nothing and the caller reads `extras`.
 */
export function keyedStatement(write: StatementWrite, answer?: StatementAnswer): Sql {
  const extras = raw((write.extras ?? []).map((c) => `, a.${c}`).join(""));
  return sql`WITH prior AS (
  SELECT r."requestHash" AS hash, r.status, r.body,
         r."createdAt" < now() - make_interval(secs => ${int(IDEMPOTENCY_WINDOW_MS / 1000)}) AS expired
  FROM "IdempotencyRecord" r WHERE r."programId" = ${k.programId}::uuid AND r."apiKeyId" = ${k.scopeId}::uuid AND r.key = ${k.key}::text
), go AS (
  SELECT 1 AS one WHERE NOT EXISTS (SELECT 1 FROM prior)
), ${write.ctes}, answer AS (
  SELECT true AS acted, ${answer ? int(answer.status) : raw("NULL::int")} AS status, ${answer ? answer.body : raw("NULL::text")} AS body, r.*
  FROM result r
), stored AS (
  INSERT INTO "IdempotencyRecord" ("programId", "apiKeyId", key, "requestHash", status, body, "customerId")
  SELECT ${k.programId}::uuid, ${k.scopeId}::uuid, ${k.key}::text, ${k.fingerprint}::text, a.status, a.body, a."customerId" FROM answer a WHERE ${k.key}::text IS NOT NULL
  RETURNING 1
)
SELECT CASE WHEN p.hash IS NULL THEN coalesce(CASE WHEN a.acted THEN 'done' END, (SELECT why FROM refusal), 'missing')
            WHEN p.expired THEN 'expired' WHEN p.hash IN (${k.fingerprint}::text, ${k.legacy}::text) THEN 'replay' ELSE 'conflict' END AS kind,
       coalesce(p.status, a.status) AS status, coalesce(p.body, a.body) AS body,
       (SELECT count(*) FROM stored)::int AS stored, (SELECT ${abortUnless(raw("ok"))} FROM invariant) AS invariant${extras}
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

/** What a keyed statement came to: an outcome (`row` has the result's extras when it acted), or why it did not act. */
export type StatementResult = { outcome: Outcome; row: StatementRow } | { refusal: string };

/**
 * Runs a keyed statement (built by `keyedStatement`, with `keyedParams(slot)` first) and settles what the key
 * decides: a replay, a 409 for another request under the key, the winner's outcome when a concurrent twin
 * committed first, an expired record replaced. A lost connection is settled as in `runIdempotently`
 * (lib/api/idempotency.ts): the record says whether the statement committed; without a key it is not retried (it
 * may have committed). A refusal (`insufficient_balance`, `race`, …) is the caller's to turn into its error or its
 * locked path.
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
      // The statement found that a concurrent write overtook it (./statement.ts): its caller takes the locked path.
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
          await deleteExpiredOutcome(database, slot.programId, slot.scopeId, slot.key);
          continue;
        }
        return { refusal: "race" };
      default:
        if (HANDED_OVER.has(row.kind)) recordHandover(row.kind);
        return { refusal: row.kind };
    }
  }
}
