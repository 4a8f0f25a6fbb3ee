import "server-only";
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
      _count: { select: { redemptions: true } },
    },
  });
  return rewards.map(({ _count, ...r }) => ({ ...r, redemptions: _count.redemptions }));
}
export type RewardRow = Awaited<ReturnType<typeof programRewards>>[number];

export interface CouponPoolRow {
  id: string;
  name: string;
  validDays: number | null;
  total: number;
  free: number;
  assigned: number;
}

/** The coupon pools page: each pool with its codes counted (served by the (poolId, customerId) index). */
export async function couponPools(db: Db, programId: string): Promise<CouponPoolRow[]> {
  const rows = await db.$queryRawUnsafe<Omit<CouponPoolRow, "assigned">[]>(
    `SELECT p.id, p.name, p."validDays",
            (SELECT count(*) FROM "Coupon" c WHERE c."programId" = p."programId" AND c."poolId" = p.id)::int AS total,
            (SELECT count(*) FROM "Coupon" c WHERE c."programId" = p."programId" AND c."poolId" = p.id AND c."customerId" IS NULL)::int AS free
     FROM "CouponPool" p WHERE p."programId" = $1::uuid ORDER BY p.name`,
    programId,
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
