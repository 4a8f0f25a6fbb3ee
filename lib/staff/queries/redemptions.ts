import "server-only";
import { query, raw, sql } from "@/lib/db/sql";
import { isoSql, type Db } from "@/lib/db/types";
import { memberOf, REDEMPTION_STATUSES, type RedemptionStatus } from "@/lib/domain/vocabulary";

/** The dashboard's reads of redemptions: one customer's recent ones, for the customer page's Redemptions card. */

export interface RedemptionRow {
  id: string;
  code: string;
  reward: string;
  points: number;
  createdAt: string;
  status: RedemptionStatus;
  cancelledAt: string | null;
  cancelReason: string | null;
  /** Until when it may still be cancelled (null: at any time), or false when it may not be (cancelled, window passed). */
  cancellableUntil: string | null | false;
}

/** How many redemptions the card shows, newest first. */
export const RECENT_REDEMPTIONS = 10;

/**
 * The customer's latest redemptions (the (customerId, createdAt) index), each with whether the program's cancel
 * window (lib/domain/redemption-cancel.ts) still allows cancelling it, by the database's clock.
 */
const recent = (programId: string, customerId: string) => sql`
SELECT r.id, r.code, w.name AS reward, r.points, ${raw(isoSql('r."createdAt"'))} AS "createdAt",
       ${raw(isoSql('r."cancelledAt"'))} AS "cancelledAt", r."cancelReason",
       CASE WHEN r."cancelledAt" IS NOT NULL OR p."redemptionCancelHours" = 0 THEN 'no'
            WHEN p."redemptionCancelHours" IS NULL THEN 'always'
            WHEN now() < r."createdAt" + make_interval(hours => p."redemptionCancelHours") THEN 'until'
            ELSE 'no' END AS cancellable,
       ${raw(isoSql('(r."createdAt" + make_interval(hours => coalesce(p."redemptionCancelHours", 0)))'))} AS until
FROM "Redemption" r JOIN "Reward" w ON w.id = r."rewardId" JOIN "Program" p ON p.id = r."programId"
WHERE r."customerId" = ${customerId}::uuid AND r."programId" = ${programId}::uuid
ORDER BY r."createdAt" DESC, r.id DESC LIMIT ${RECENT_REDEMPTIONS}`;

export async function customerRedemptions(db: Db, programId: string, customerId: string): Promise<RedemptionRow[]> {
  const rows = await query<
    Omit<RedemptionRow, "cancellableUntil" | "status"> & { cancellable: "no" | "always" | "until"; until: string }
  >(db, recent(programId, customerId));
  return rows.map(({ cancellable, until, ...r }) => ({
    ...r,
    points: Number(r.points),
    status: memberOf(REDEMPTION_STATUSES, r.cancelledAt ? "cancelled" : "active"),
    cancellableUntil: cancellable === "always" ? null : cancellable === "until" ? until : false,
  }));
}
