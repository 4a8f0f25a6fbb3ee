import "server-only";
import type { Tx } from "@/lib/db/types";
import { query, raw, sql } from "@/lib/db/sql";
import { isoSql } from "@/lib/db/types";
import type { BalanceChange } from "./balance-change";
import { emitEvent } from "./events";
import type { PendingSettings, PendingTerms } from "./pending-rules";
import { applyEarnTierPoints } from "./tiers-engine";

/**
 * The write of pending points (pending-rules.ts decides; pending.ts matures, confirms and cancels them): a
 * `PendingPoints` row instead of a ledger entry, the balance untouched. Called by the ledger's locked path
 * (ledger.ts `changeBalance`) under the customer's balance row lock, so that an earn's pending rule and its ledger
 * entry are decided in one place.
 */

/** A pending-points row as the API shows it (API.md §4 "Pending points"), from alias `x`. */
export const pendingJsonSql = (x: string) =>
  `json_build_object('id', ${x}.id, 'customerId', ${x}."customerId", 'points', ${x}.points, 'status', ${x}.status,
     'orderId', ${x}."orderId", 'reason', ${x}.reason, 'createdAt', ${isoSql(`${x}."createdAt"`)},
     'maturesAt', ${isoSql(`${x}."maturesAt"`)}, 'settledAt', ${isoSql(`${x}."settledAt"`)},
     'transactionId', ${x}."ledgerEntryId")`;

/** The program's pending settings. */
export async function pendingSettings(tx: Tx, programId: string): Promise<PendingSettings> {
  const [row] = await query<PendingSettings>(
    tx,
    sql`SELECT "pendingDays", "pendingUntilConfirmed", "pendingCountsForTier" FROM "Program" WHERE id = ${programId}::uuid`,
  );
  return row ?? { pendingDays: 0, pendingUntilConfirmed: false, pendingCountsForTier: false };
}

/**
 * Writes the earn `change` (its time set) as pending points on `terms`, under the balance row lock the caller holds:
 * the row, the customer's last activity (an earn is activity for the `inactivity` expiry), the tier points when they
 * count at the earn, and `points.pending`. Answers the balance (unchanged) and the pending points as JSON text.
 */
export async function writePending(
  tx: Tx,
  change: BalanceChange & { now: Date },
  terms: PendingTerms,
  /** The row's id when the caller named it beforehand (a campaign's effect in an event's answer); else a new one. */
  id?: string,
): Promise<{ balance: number; pendingJson: string; pendingId: string }> {
  const now = change.now.toISOString();
  const [row] = await query<{ id: string; json: string; balance: number }>(
    tx,
    sql`WITH x AS (
      INSERT INTO "PendingPoints" (id, "programId", "customerId", points, type, reason, source, actor, metadata,
                                   "earningFlowId", "orderId", "createdAt", "maturesAt", "tierCounted")
      VALUES (coalesce(${id ?? null}::uuid, gen_random_uuid()), ${change.programId}::uuid, ${change.customerId}::uuid, ${change.points}::int, ${change.type}::text,
              ${change.reason ?? null}::text, ${change.source}::text, ${change.actor}::text,
              ${change.metadata == null ? null : JSON.stringify(change.metadata)}::jsonb,
              ${change.earningFlowId ?? null}::uuid, ${change.orderId ?? null}::text, ${now}::timestamptz,
              ${terms.maturesAt?.toISOString() ?? null}::timestamptz, ${terms.tierAtEarn}::boolean)
      RETURNING *
    ), l AS (
      UPDATE "LoyaltyData" SET "lastActivityAt" = ${now}::timestamptz, "updatedAt" = ${now}::timestamptz
      WHERE "programId" = ${change.programId}::uuid AND "customerId" = ${change.customerId}::uuid
      RETURNING balance
    )
    SELECT x.id::text AS id, ${raw(pendingJsonSql("x"))}::text AS json, l.balance FROM x, l`,
  );
  if (!row) throw new Error(`pending points for a customer without balance row: ${change.customerId}`);
  if (terms.tierAtEarn) await applyEarnTierPoints(tx, change.programId, change.customerId, change.points, change.now);
  await emitEvent(
    tx,
    change.programId,
    "points.pending",
    {
      customerId: change.customerId,
      pendingId: row.id,
      points: change.points,
      orderId: change.orderId ?? null,
      maturesAt: terms.maturesAt?.toISOString() ?? null,
    },
    change.now,
  );
  return { balance: Number(row.balance), pendingJson: row.json, pendingId: row.id };
}
