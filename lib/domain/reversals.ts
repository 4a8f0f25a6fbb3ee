import "server-only";
import type { Tx } from "@/lib/db/types";
import { reversalExceedsOriginal, transactionNotFound, transactionNotReversible } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { changeBalance, expireDueLots, MAX_BALANCE } from "./ledger";
import { lockBalance } from "./balance-lock";
import { emitEvents } from "./events";
import { programNow } from "./clock";
import { ledgerEntryJson } from "./sql";
import { reverseEarnTierPoints } from "./tiers-engine";
import { releaseCampaignUse } from "./campaigns/release";
import type { LedgerSource } from "./vocabulary";

/**
 * Reversals: the ONE domain function that undoes a ledger entry (`reverseEntry`), called by the API, the dashboard,
 * the CLI and order refunds (refunds.ts `refundOrder`). Always on the locked path (ledger.ts `changeBalance` in the caller's
 * transaction, after the customer's row lock): corrections are rare, correctness first.
 *
 * Policy (docs/integrating.md "Corrections: reversals, refunds and cancelled redemptions"):
 * - Reversible: positive `earn` and `adjust` entries (points come off the balance), and `spend` and negative
 *   `adjust` entries (the points come back as a new lot). Redemptions are cancelled, not reversed; expiries,
 *   reversals and redemptions are refused with `transaction_not_reversible`.
 * - Partial reversals add up: the points REQUESTED over all reversals of an entry never exceed its points; each
 *   reversal entry stores `requested` and `unrecovered` in its metadata, so the cap is exact even when spent points
 *   could not be taken back.
 * - Points already spent: the reversal takes what the balance allows (the entry's own lot first, then the oldest
 *   lots), never below zero, and reports the rest as `unrecovered`. When nothing can be taken, a 0-point `reversal`
 *   entry still records it (balance = Σ entries = Σ lots holds: it adds and consumes nothing).
 * - Tier points: reversing an `earn` lowers the tier points of the period it counted in by the points REQUESTED
 *   (an order refunded after its points were spent must not keep its tier): the current period's
 *   `currentTierPoints`, the previous period's `carryTierPoints` (the carried tier itself stays until the next
 *   recalculation, API.md §4), nothing for older periods; never below 0. The tier changes only at recalculation
 *   (tier-rules.ts `reverseEarn`).
 */

export interface ReverseInput {
  programId: string;
  customerId: string;
  transactionId: string;
  /** Points to reverse (positive); absent: everything left to reverse of the entry. */
  points?: number | null;
  reason: string;
  source: LedgerSource;
  actor: string;
  idempotencyKey?: string | null;
  now?: Date;
}

export interface ReversalOutcome {
  balance: number;
  /** The reversal ledger entry as JSON text (API.md §4 shape). */
  entryJson: string;
  entryId: string;
  /** Points requested. */
  requested: number;
  /** Points of the request that could not be taken back (already spent). */
  unrecovered: number;
  /** Tier points removed from the period the entry counted in. */
  tierPoints: number;
  customerId: string;
  orderId: string | null;
}

interface Original {
  id: string;
  type: string;
  points: number;
  createdAt: Date;
  orderId: string | null;
  reversed: number;
}

/** The entry and what was already requested of it, for this program and customer (another's: 404). */
export async function loadOriginal(tx: Tx, programId: string, customerId: string, transactionId: string) {
  if (!isUuid(transactionId)) throw transactionNotFound();
  const rows = await tx.$queryRawUnsafe<Original[]>(
    `SELECT e.id::text AS id, e.type, e.points, e."createdAt", e."orderId",
            (SELECT coalesce(sum((r.metadata->>'requested')::int), 0)::int FROM "LedgerEntry" r
              WHERE r."programId" = e."programId" AND r."reversesId" = e.id) AS reversed
     FROM "LedgerEntry" e WHERE e.id = $1::uuid AND e."programId" = $2::uuid AND e."customerId" = $3::uuid`,
    transactionId,
    programId,
    customerId,
  );
  const original = rows[0];
  if (!original) throw transactionNotFound();
  return original;
}

const REVERSIBLE = (o: Original) =>
  (o.points > 0 && (o.type === "earn" || o.type === "adjust")) ||
  (o.points < 0 && (o.type === "spend" || o.type === "adjust"));

/** What is left to reverse of an entry (the cap). */
export const leftToReverse = (o: { points: number; reversed: number }) => Math.max(0, Math.abs(o.points) - o.reversed);

/**
 * Reverses (part of) a ledger entry in the caller's transaction: see the policy above. Takes the customer's row lock
 * first (the lock order of every balance change).
 */
export async function reverseEntry(tx: Tx, input: ReverseInput): Promise<ReversalOutcome> {
  const { programId, customerId } = input;
  const now = input.now ?? programNow(programId);
  await lockBalance(tx, programId, customerId);
  const original = await loadOriginal(tx, programId, customerId, input.transactionId);
  if (!REVERSIBLE(original)) throw transactionNotReversible(original.type);
  const left = leftToReverse(original);
  const requested = input.points ?? left;
  if (requested > left || requested <= 0) throw reversalExceedsOriginal(left);

  // Expired points are gone before a reversal takes any (as before every spend); then the balance bounds it.
  if (original.points > 0) await expireDueLots(tx, programId, customerId, now);
  const [state] = await tx.$queryRawUnsafe<{ balance: number }[]>(
    `SELECT balance FROM "LoyaltyData" WHERE "programId" = $1::uuid AND "customerId" = $2::uuid`,
    programId,
    customerId,
  );
  const balance = state?.balance ?? 0;
  const taken = original.points > 0 ? Math.min(requested, balance) : Math.min(requested, MAX_BALANCE - balance);
  const unrecovered = requested - taken;
  const metadata = { requested, unrecovered };
  const change = {
    programId,
    customerId,
    type: "reversal" as const,
    reason: input.reason,
    source: input.source,
    actor: input.actor,
    metadata,
    idempotencyKey: input.idempotencyKey ?? null,
    orderId: original.orderId,
    reversesId: original.id,
    now,
  };
  const result =
    taken > 0
      ? await changeBalance(tx, { ...change, points: original.points > 0 ? -taken : taken })
      : await recordNothingTaken(tx, change, balance);

  // A campaign's entry gives its budget and the customer's use back (campaigns/release.ts).
  await releaseCampaignUse(tx, { programId, customerId, entryId: original.id, taken, leftAfter: left - requested });
  const tierPoints =
    original.type === "earn"
      ? await reverseEarnTierPoints(
          tx,
          programId,
          customerId,
          { createdAt: new Date(original.createdAt), points: requested },
          now,
        )
      : 0;
  await emitEvents(
    tx,
    programId,
    [
      {
        type: "transaction.reversed",
        data: {
          customerId,
          transactionId: result.entryId,
          reversesId: original.id,
          orderId: original.orderId,
          requested,
          points: taken,
          unrecovered,
          tierPoints,
          balance: result.balance,
        },
      },
    ],
    now,
  );
  return { ...result, requested, unrecovered, tierPoints, customerId, orderId: original.orderId };
}

/** A reversal that could take nothing back: a 0-point entry (no lot, balance unchanged), so the cap and tiers see it. */
async function recordNothingTaken(
  tx: Tx,
  change: {
    programId: string;
    customerId: string;
    reason: string;
    source: string;
    actor: string;
    metadata: object;
    idempotencyKey: string | null;
    orderId: string | null;
    reversesId: string;
    now: Date;
  },
  balance: number,
) {
  const [row] = await tx.$queryRawUnsafe<{ id: string; entry: string }[]>(
    `WITH e AS (
       INSERT INTO "LedgerEntry" ("programId", "customerId", type, points, "balanceAfter", reason, source, actor,
                                  "idempotencyKey", metadata, "orderId", "reversesId", "createdAt")
       VALUES ($1::uuid, $2::uuid, 'reversal', 0, $3::int, $4, $5, $6, $7, $8::jsonb, $9, $10::uuid, $11::timestamptz)
       RETURNING *
     ), touch AS (
       -- The hot path reads lots and balance from one snapshot guarded by this row's version: bump it.
       UPDATE "LoyaltyData" SET "updatedAt" = $11::timestamptz WHERE "programId" = $1::uuid AND "customerId" = $2::uuid RETURNING 1
     )
     SELECT e.id::text AS id, ${ledgerEntryJson("e")}::text AS entry FROM e`,
    change.programId,
    change.customerId,
    balance,
    change.reason,
    change.source,
    change.actor,
    change.idempotencyKey,
    JSON.stringify(change.metadata),
    change.orderId,
    change.reversesId,
    change.now.toISOString(),
  );
  if (!row) throw new Error("reversal entry not written");
  return { balance, entryJson: row.entry, entryId: row.id };
}
