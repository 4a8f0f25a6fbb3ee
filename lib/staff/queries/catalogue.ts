import "server-only";
import { findRow } from "@/lib/db/require-row";
import { join, query, raw, sql } from "@/lib/db/sql";
import type { Db } from "@/lib/db/types";

/** The dashboard's reads of the program's catalogue: tiers, rewards, coupon pools, earning flows. */

export async function programTiers(db: Db, programId: string) {
  return db.tier.findMany({ where: { programId }, orderBy: [{ requiredPoints: "asc" }, { createdAt: "asc" }] });
}

/** The rewards page: every reward of the program (active or not) with its number of redemptions. */
export async function programRewards(db: Db, programId: string) {
  const rewards = await db.reward.findMany({
    where: { programId },
    orderBy: [{ active: "desc" }, { costPoints: "asc" }, { name: "asc" }],
    select: {
      id: true,
      name: true,
      description: true,
      image: true,
      costPoints: true,
      stock: true,
      active: true,
      perCustomerLimit: true,
      minTierId: true,
      updatedAt: true,
      // A cancelled redemption is void: it is not counted.
      _count: { select: { redemptions: { where: { cancelledAt: null } } } },
    },
  });
  return rewards.map(({ _count, ...r }) => ({ ...r, redemptions: _count.redemptions }));
}
export type RewardRow = Awaited<ReturnType<typeof programRewards>>[number];

export interface CouponPoolRow {
  id: string;
  name: string;
  validDays: number | null;
  active: boolean;
  updatedAt: Date;
  total: number;
  free: number;
  assigned: number;
}

/** The coupon pools page: each pool with its codes counted (served by the (poolId, customerId) index). */
export async function couponPools(db: Db, programId: string): Promise<CouponPoolRow[]> {
  const rows = await query<Omit<CouponPoolRow, "assigned">>(
    db,
    sql`SELECT p.id, p.name, p."validDays", p.active, p."updatedAt",
            (SELECT count(*) FROM "Coupon" c WHERE c."programId" = p."programId" AND c."poolId" = p.id)::int AS total,
            (SELECT count(*) FROM "Coupon" c WHERE c."programId" = p."programId" AND c."poolId" = p.id AND c."customerId" IS NULL)::int AS free
     FROM "CouponPool" p WHERE p."programId" = ${programId}::uuid ORDER BY p.name`,
  );
  return rows.map((r) => ({
    ...r,
    total: Number(r.total),
    free: Number(r.free),
    assigned: Number(r.total) - Number(r.free),
  }));
}

/** The earning flows page: every flow of the program, by key. */
export async function earningFlows(db: Db, programId: string) {
  return db.earningFlow.findMany({ where: { programId }, orderBy: { key: "asc" } });
}

/** A code's state as the pool's page shows it: free to assign, assigned and valid, or assigned and past its expiry. */
export const COUPON_CODE_STATUSES = ["available", "assigned", "expired"] as const;
export type CouponCodeStatus = (typeof COUPON_CODE_STATUSES)[number];

export interface CouponCodeRow {
  code: string;
  status: CouponCodeStatus;
  email: string | null;
  assignedAt: Date | null;
  expiresAt: Date | null;
}

export const COUPON_CODES_PAGE = 50;

const CODE_STATUS = raw(`CASE WHEN c."customerId" IS NULL THEN 'available'
  WHEN c."expiresAt" IS NOT NULL AND c."expiresAt" <= now() THEN 'expired' ELSE 'assigned' END`);

/**
 * One page of a pool's codes in code order (keyset: the codes after `after`, served by the (poolId, code) unique
 * index), optionally only those starting with `prefix` (case-sensitive, as codes are) or in one status, with the
 * e-mail of the customer holding each.
 */
export async function couponCodes(
  db: Db,
  poolId: string,
  filters: { prefix?: string; status?: CouponCodeStatus; after?: string },
): Promise<{ rows: CouponCodeRow[]; next: string | null }> {
  const where = [sql`c."poolId" = ${poolId}::uuid`];
  if (filters.prefix)
    where.push(sql`c.code >= ${filters.prefix}::text AND starts_with(c.code, ${filters.prefix}::text)`);
  if (filters.after) where.push(sql`c.code > ${filters.after}::text`);
  if (filters.status) where.push(sql`${CODE_STATUS} = ${filters.status}::text`);
  const rows = await query<CouponCodeRow>(
    db,
    sql`SELECT c.code, cu.email, c."assignedAt", c."expiresAt", ${CODE_STATUS} AS status
     FROM "Coupon" c LEFT JOIN "Customer" cu ON cu.id = c."customerId"
     WHERE ${join(where, " AND ")}
     ORDER BY c.code LIMIT ${COUPON_CODES_PAGE + 1}`,
  );
  const page = rows.slice(0, COUPON_CODES_PAGE);
  return { rows: page, next: rows.length > COUPON_CODES_PAGE ? page.at(-1)!.code : null };
}

/** The pool of the program (for its codes page), or null. */
export async function programCouponPool(db: Db, programId: string, poolId: string) {
  return findRow(poolId, (id) =>
    db.couponPool.findFirst({
      where: { id, programId },
      select: { id: true, name: true, validDays: true, active: true },
    }),
  );
}
