import "server-only";
import { isoSql, type Tx } from "@/lib/db/types";
import { cancelWindowClosed, redemptionAlreadyCancelled, redemptionNotFound } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { emitEvent } from "./events";
import { changeBalance, recordExpired } from "./ledger";
import { lotExpirySql } from "./expiry-rules";
import { programNow } from "./clock";
import type { LedgerSource, RedemptionStatus } from "./vocabulary";

/**
 * The one place a redemption is cancelled (API.md §3 "Cancel a redemption"; the API, the dashboard and the CLI call
 * `cancelRedemption`), in the caller's transaction, on the ledger's locked path:
 *
 * - Once only: the cancel first claims the redemption with a conditional UPDATE (`… AND "cancelledAt" IS NULL`). Of
 *   concurrent cancels one claims it; the others wait for its row lock, find it cancelled when it commits, and are
 *   refused (409 `redemption_already_cancelled`); if the winner rolls back, the next one claims it instead.
 * - Within the program's window: `Program.redemptionCancelHours` hours after the redemption (default 24; 0: never;
 *   null: at any time), by the program's clock (clock.ts; or `now`, for the CLI replaying time). Outside it: 409
 *   `cancel_window_closed`.
 * - The code is void from then on (`cancelledAt` set; every read of redemptions shows `status: "cancelled"`), and
 *   the redemption stops counting towards the reward's per-customer limit (redeem-rules.ts).
 * - Stock comes back: a reward with a stock gets its unit back (an unlimited one is not written).
 * - Points come back as a `reversal` ledger entry (`changeBalance`: the customer's row lock, then one statement), and
 *   into the lots the redemption consumed, each keeping its expiry; the points of lots expired since are expired at
 *   once (`settleConsumedLots` below: a cancel cannot dodge expiry). Its metadata names the redemption, and its
 *   `reversesId` the `redeem` entry it reverses. Tier points do not change: a redemption never counted.
 * - Events: `balance.changed` (the ledger's) and `redemption.cancelled`.
 *
 * Lock order: Redemption → Reward → LoyaltyData. A redemption locks Reward → LoyaltyData and only inserts its
 * Redemption row, so the two never wait on each other in a cycle.
 *
 * An unknown redemption, another program's, or one whose customer was erased: 404 `redemption_not_found`.
 */

export interface CancelRedemptionInput {
  programId: string;
  redemptionId: string;
  reason: string;
  /** Who: `api_key:<id>`, `staff:<id>` or `system`. */
  actor: string;
  source: LedgerSource;
  idempotencyKey?: string | null;
  /** The business time of the cancel (clock.ts); the program's clock when absent. */
  now?: Date;
}

/** A redemption as the API returns it: its code and, since the cancel, its status. */
export interface RedemptionView {
  id: string;
  rewardId: string;
  customerId: string;
  code: string;
  points: number;
  transactionId: string;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  status: RedemptionStatus;
  cancelledAt: string | null;
  cancelReason: string | null;
}

interface ClaimedRow {
  id: string;
  rewardId: string;
  customerId: string;
  code: string;
  points: number;
  ledgerEntryId: string;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  cancelledAt: string;
  cancelReason: string;
  lots: { lotId: string; points: number }[] | null;
}

/**
 * Claims the redemption for this cancel: one conditional UPDATE that succeeds once, only for a live customer of the
 * program and within the window. $1 redemption, $2 program, $3 reason, $4 actor, $5 the business time.
 */
const CLAIM_SQL = `
WITH clock AS (SELECT $5::timestamptz AS at)
UPDATE "Redemption" r SET "cancelledAt" = clock.at, "cancelReason" = $3::text, "cancelledBy" = $4::text
FROM clock, "Program" p, "Customer" c
WHERE r.id = $1::uuid AND r."programId" = $2::uuid AND r."cancelledAt" IS NULL
  AND p.id = r."programId" AND c.id = r."customerId" AND c."deletedAt" IS NULL
  AND (p."redemptionCancelHours" IS NULL
       OR (p."redemptionCancelHours" > 0 AND clock.at < r."createdAt" + make_interval(hours => p."redemptionCancelHours")))
RETURNING r.id, r."rewardId", r."customerId", r.code, r.points, r."ledgerEntryId", r.metadata,
          ${isoSql('r."createdAt"')} AS "createdAt", ${isoSql('r."cancelledAt"')} AS "cancelledAt", r."cancelReason", r.lots`;

/** Why the claim matched nothing: the redemption as it is now (no row: unknown or another program's). */
const REFUSAL_SQL = `
SELECT r."cancelledAt" IS NOT NULL AS cancelled, c."deletedAt" IS NOT NULL AS erased, p."redemptionCancelHours" AS hours
FROM "Redemption" r JOIN "Program" p ON p.id = r."programId" JOIN "Customer" c ON c.id = r."customerId"
WHERE r.id = $1::uuid AND r."programId" = $2::uuid`;

async function refusal(tx: Tx, programId: string, redemptionId: string) {
  const [row] = await tx.$queryRawUnsafe<{ cancelled: boolean; erased: boolean; hours: number | null }[]>(
    REFUSAL_SQL,
    redemptionId,
    programId,
  );
  if (!row || row.erased) return redemptionNotFound();
  if (row.cancelled) return redemptionAlreadyCancelled();
  return cancelWindowClosed(Number(row.hours ?? 0));
}

/**
 * Cancels the program's redemption (see the header): returns the redemption as it is now, the balance after the
 * points came back and the `reversal` entry (JSON text, API.md §4 shape). Any refusal changes nothing.
 */
export async function cancelRedemption(tx: Tx, input: CancelRedemptionInput) {
  if (!isUuid(input.redemptionId)) throw redemptionNotFound();
  const now = input.now ?? programNow(input.programId);
  const [claimed] = await tx.$queryRawUnsafe<ClaimedRow[]>(
    CLAIM_SQL,
    input.redemptionId,
    input.programId,
    input.reason,
    input.actor,
    now.toISOString(),
  );
  if (!claimed) throw await refusal(tx, input.programId, input.redemptionId);
  await tx.$executeRawUnsafe(
    `UPDATE "Reward" SET stock = stock + 1, "updatedAt" = $3::timestamptz WHERE id = $1::uuid AND "programId" = $2::uuid AND stock IS NOT NULL`,
    claimed.rewardId,
    input.programId,
    now.toISOString(),
  );
  const points = Number(claimed.points);
  const back = await changeBalance(tx, {
    programId: input.programId,
    customerId: claimed.customerId,
    points,
    type: "reversal",
    source: input.source,
    actor: input.actor,
    reason: `redemption cancelled: ${input.reason}`,
    metadata: { redemptionId: claimed.id, reverses: claimed.ledgerEntryId },
    reversesId: claimed.ledgerEntryId,
    idempotencyKey: input.idempotencyKey,
    now,
  });
  await tx.$executeRawUnsafe(
    `UPDATE "Redemption" SET "cancelLedgerEntryId" = $2::uuid WHERE id = $1::uuid`,
    claimed.id,
    back.entryId,
  );
  const expired = await settleConsumedLots(tx, input.programId, claimed, back.entryId, now);
  await emitEvent(
    tx,
    input.programId,
    "redemption.cancelled",
    {
      customerId: claimed.customerId,
      rewardId: claimed.rewardId,
      redemptionId: claimed.id,
      code: claimed.code,
      points,
      transactionId: back.entryId,
      reason: input.reason,
      expiredPoints: expired,
    },
    now,
  );
  const redemption: RedemptionView = {
    id: claimed.id,
    rewardId: claimed.rewardId,
    customerId: claimed.customerId,
    code: claimed.code,
    points,
    transactionId: claimed.ledgerEntryId,
    metadata: claimed.metadata ?? null,
    createdAt: claimed.createdAt,
    status: "cancelled",
    cancelledAt: claimed.cancelledAt,
    cancelReason: claimed.cancelReason,
  };
  return {
    redemption,
    balance: back.balance - expired,
    entryJson: back.entryJson,
    customerId: claimed.customerId,
    expiredPoints: expired,
  };
}

/**
 * Cancelled redemptions cannot dodge expiry (API.md §4): the points the `reversal` entry gave back go back into the
 * lots the redemption consumed (`Redemption.lots`), keeping each lot's expiry; the points of lots that have expired
 * since (expiry-rules.ts, at `now`) are expired at once, one `expire` entry with `metadata.redemptionId` and
 * `expiredOnCancel`. The reversal's own lot keeps only what no recorded lot takes back (a redemption made before the
 * lots were recorded: all of it, expiring as points added now). Answers the points expired.
 */
async function settleConsumedLots(tx: Tx, programId: string, claimed: ClaimedRow, reversalId: string, now: Date) {
  if (!claimed.lots) return 0;
  const [settled] = await tx.$queryRawUnsafe<{ live: number; expired: number }[]>(
    `WITH used AS (
       SELECT (x->>'lotId')::uuid AS lot_id, (x->>'points')::int AS points FROM jsonb_array_elements($1::jsonb) x
     ), lots AS (
       SELECT pl.id, u.points, ${lotExpirySql("pl")} <= $3::timestamptz AS expired
       FROM used u JOIN "PointLot" pl ON pl.id = u.lot_id AND pl."programId" = $2::uuid
     ), back AS (
       UPDATE "PointLot" pl SET remaining = pl.remaining + lots.points FROM lots WHERE pl.id = lots.id AND NOT lots.expired
       RETURNING lots.points
     ), own AS (
       UPDATE "PointLot" SET remaining = remaining - (SELECT coalesce(sum(points), 0) FROM lots)
       WHERE "ledgerEntryId" = $4::uuid
       RETURNING 1
     )
     SELECT (SELECT coalesce(sum(points), 0) FROM back)::int AS live,
            (SELECT coalesce(sum(points), 0) FROM lots WHERE expired)::int AS expired
     FROM (SELECT count(*) FROM own) o`,
    JSON.stringify(claimed.lots),
    programId,
    now.toISOString(),
    reversalId,
  );
  const expired = settled?.expired ?? 0;
  if (expired > 0)
    await recordExpired(tx, {
      programId,
      customerId: claimed.customerId,
      points: expired,
      now,
      reason: "points expired before the redemption was cancelled",
      metadata: { redemptionId: claimed.id, expiredOnCancel: true },
    });
  return expired;
}
