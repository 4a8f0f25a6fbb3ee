import "server-only";
import { isoSql, type RawQueries, type Tx } from "@/lib/db/types";
import { query, raw, sql } from "@/lib/db/sql";
import { lotExpirySql } from "./expiry-rules";
import { decodeCursor, encodeCursor, type KeysetPosition } from "./cursor";
import { invalidInput } from "@/lib/errors";
import { changeBalance, expireDueLots, type CustomerByEmail } from "./ledger";
import type { BalanceChange } from "./balance-change";
import type { LedgerSource } from "./vocabulary";
import { ledgerEntryJson } from "./sql";
import { sweepNow } from "./clock";
import type { PrismaClient } from "@/lib/generated/prisma/client";

export interface PointsMove {
  programId: string;
  customerId: string;
  points: number;
  reason?: string | null;
  metadata?: Record<string, unknown> | null;
  source: LedgerSource;
  actor: string;
  idempotencyKey?: string | null;
  /** The order the points were earned with (increase only). */
  orderId?: string | null;
  now?: Date;
}

/** A move on the hot path may name its customer by e-mail (ledger.ts `CustomerByEmail`). */
type HotMove = PointsMove | CustomerByEmail<PointsMove>;
type HotChange = BalanceChange | CustomerByEmail<BalanceChange>;

const increase = <M extends HotMove>(move: M) =>
  move.source === "dashboard"
    ? { ...move, type: "adjust" as const }
    : // An earn of the API goes pending when the program says so (pending-rules.ts).
      { ...move, type: "earn" as const, pending: "program" as const };
const decrease = <M extends HotMove>(move: M) => ({
  ...move,
  points: -move.points,
  type: move.source === "dashboard" ? ("adjust" as const) : ("spend" as const),
});

/**
 * Increase balance: an `earn` from the API (counts towards tiers), an `adjust` from the dashboard (does not).
 * `change` is the balance change it makes, for the one-statement hot path (ledger.ts `changeWrite`).
 */
export const increaseBalance = Object.assign((tx: Tx, move: PointsMove) => changeBalance(tx, increase(move)), {
  change: (move: HotMove): HotChange => increase(move),
});

/** Decrease balance: a `spend` from the API, an `adjust` from the dashboard; 409 `insufficient_balance` below zero. */
export const decreaseBalance = Object.assign((tx: Tx, move: PointsMove) => changeBalance(tx, decrease(move)), {
  change: (move: HotMove): HotChange => decrease(move),
});

function readCursor(cursor: string): KeysetPosition {
  const position = decodeCursor(cursor);
  if (!position)
    throw invalidInput("The cursor is not valid.", [{ path: "cursor", message: "is not a cursor from this API" }]);
  return position;
}

/** A page of the customer's ledger, newest first, as `{ data, nextCursor }` JSON text. */
export async function listTransactionsJson(
  db: RawQueries,
  customerId: string,
  limit: number,
  cursor?: string | null,
): Promise<string> {
  const after = cursor ? readCursor(cursor) : null;
  const rows = await db.$queryRawUnsafe<{ entry: string; createdAt: string; id: string }[]>(
    `SELECT ${ledgerEntryJson("e")}::text AS entry, ${isoSql('e."createdAt"', "us")} AS "createdAt", e.id::text AS id
     FROM "LedgerEntry" e
     WHERE e."customerId" = $1::uuid AND ($2::timestamptz IS NULL OR (e."createdAt", e.id) < ($2::timestamptz, $3::uuid))
     ORDER BY e."createdAt" DESC, e.id DESC LIMIT $4`,
    customerId,
    after?.at ?? null,
    after?.id ?? null,
    limit + 1,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null;
  return `{"data":[${page.map((r) => r.entry).join(",")}],"nextCursor":${JSON.stringify(nextCursor)}}`;
}

/**
 * The expiry job: every customer with lots past their expiry gets one `expire` entry, of one program or of every
 * live program (the scheduler's sweep on real time; a test program's lots expire when its clock is advanced).
 * Customers are claimed with SKIP LOCKED so several instances can run it at once.
 */
export async function expireDuePoints(
  prisma: PrismaClient,
  options: { programId?: string; now?: Date; batchSize?: number } = {},
): Promise<{ customers: number; points: number }> {
  const now = options.now ?? sweepNow(options.programId);
  const batchSize = options.batchSize ?? 200;
  let customers = 0;
  let points = 0;
  for (;;) {
    const batch = await prisma.$transaction(
      async (tx) => {
        const programId = options.programId ?? null;
        const due = await query<{ customerId: string; programId: string }>(
          tx,
          sql`SELECT l."customerId", l."programId" FROM "LoyaltyData" l
           WHERE (l."programId", l."customerId") IN (SELECT DISTINCT pl."programId", pl."customerId" FROM "PointLot" pl
                   WHERE pl.remaining > 0 AND ${raw(lotExpirySql("pl"))} <= ${now.toISOString()}::timestamptz
                     AND (${programId}::uuid IS NULL OR pl."programId" = ${programId}::uuid))
             AND (${programId}::uuid IS NULL OR l."programId" = ${programId}::uuid)
             AND (${programId}::uuid IS NOT NULL OR l."programId" IN (SELECT id FROM "Program" WHERE NOT test))
           LIMIT ${batchSize}::int FOR UPDATE OF l SKIP LOCKED`,
        );
        let expired = 0;
        for (const d of due) expired += await expireDueLots(tx, d.programId, d.customerId, now);
        return { n: due.length, expired };
      },
      { timeout: 120_000 },
    );
    customers += batch.n;
    points += batch.expired;
    if (batch.n < batchSize) return { customers, points };
  }
}
