import type { Db } from "@/lib/db/types";
import { isoSql } from "@/lib/db/types";
import { getCustomerJsonById } from "@/lib/domain/customers";
import { listTransactionsJson } from "@/lib/domain/points";

/**
 * The dashboard's reads, one function per page. Written for a program of 1,000,000 customers: index-backed
 * prefix search, keyset pagination (no OFFSET), no count of the whole table per page.
 */

export type CustomerSort = "email" | "newest";

export interface CustomerRow {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  balance: number;
  tier: string | null;
  createdAt: string;
}

/** Upper bound for "starts with": every string beginning with `prefix` sorts below it byte-wise. */
const prefixEnd = (prefix: string) => `${prefix}\u{10FFFF}`;

export async function searchCustomers(
  db: Db,
  programId: string,
  options: { prefix?: string; tierId?: string | null; sort?: CustomerSort; after?: string | null; limit?: number },
): Promise<{ rows: CustomerRow[]; next: string | null }> {
  const limit = Math.min(Math.max(options.limit ?? 25, 1), 100);
  const prefix = (options.prefix ?? "").trim().toLowerCase();
  const sort = options.sort ?? "email";
  const params: unknown[] = [programId];
  const where = [`c."programId" = $1::uuid`, `c."deletedAt" IS NULL`, `c.email IS NOT NULL`];
  // ~>=~ / ~<~ compare byte-wise and use the (programId, email text_pattern_ops) index with bound parameters.
  if (prefix) {
    params.push(prefix, prefixEnd(prefix));
    where.push(`c.email ~>=~ $${params.length - 1}`, `c.email ~<~ $${params.length}`);
  }
  if (options.tierId) {
    params.push(options.tierId);
    where.push(`ct."currentTierId" = $${params.length}::uuid`);
  }
  if (options.after) {
    if (sort === "email") {
      params.push(options.after);
      where.push(`c.email ~>~ $${params.length}`);
    } else {
      const [at, id] = Buffer.from(options.after, "base64url").toString().split("|");
      params.push(at, id);
      where.push(`(c."createdAt", c.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
  }
  const order = sort === "email" ? `c.email USING ~<~` : `c."createdAt" DESC, c.id DESC`;
  params.push(limit + 1);
  const rows = await db.$queryRawUnsafe<(CustomerRow & { cursorAt: string })[]>(
    `SELECT c.id, c.email, u."firstName", u."lastName", l.balance, t.name AS tier, ${isoSql('c."createdAt"')} AS "createdAt",
            to_char(c."createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"
     FROM "Customer" c
       JOIN "UserData" u ON u."customerId" = c.id
       JOIN "LoyaltyData" l ON l."customerId" = c.id
       JOIN "CustomerTier" ct ON ct."customerId" = c.id
       LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
     WHERE ${where.join(" AND ")}
     ORDER BY ${order} LIMIT $${params.length}`,
    ...params,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const next = rows.length > limit && last ? (sort === "email" ? last.email : Buffer.from(`${last.cursorAt}|${last.id}`).toString("base64url")) : null;
  return { rows: page.map(({ cursorAt: _c, ...r }) => ({ ...r, balance: Number(r.balance) })), next };
}

export async function programTiers(db: Db, programId: string) {
  return db.tier.findMany({ where: { programId }, orderBy: [{ requiredPoints: "asc" }, { createdAt: "asc" }] });
}

/** Everything the customer page shows, in parallel. */
export async function customerProfile(db: Db, programId: string, customerId: string) {
  const customerJson = await getCustomerJsonById(db, programId, customerId);
  if (!customerJson) return null;
  const [tiers, history, redemptions, coupons, notifications, rewards, pools] = await Promise.all([
    programTiers(db, programId),
    listTransactionsJson(db, customerId, 20),
    db.redemption.findMany({ where: { customerId }, orderBy: { createdAt: "desc" }, take: 20, include: { reward: { select: { name: true } } } }),
    db.coupon.findMany({ where: { customerId }, orderBy: { assignedAt: "desc" }, take: 20, include: { pool: { select: { name: true } } } }),
    db.notification.findMany({ where: { customerId }, orderBy: { createdAt: "desc" }, take: 20 }),
    db.reward.findMany({ where: { programId, active: true }, orderBy: { costPoints: "asc" }, select: { id: true, name: true, costPoints: true, stock: true } }),
    db.couponPool.findMany({ where: { programId }, orderBy: { name: "asc" }, select: { id: true, name: true } }),
  ]);
  return { customer: JSON.parse(customerJson), tiers, history: JSON.parse(history), redemptions, coupons, notifications, rewards, pools };
}

export interface DayPoint {
  day: string;
  issued: number;
  redeemed: number;
  members: number;
}

/** The overview: members, points issued and redeemed per day over 30 days, and the tier distribution. */
export async function overview(db: Db, programId: string) {
  const [days, tiers, totals] = await Promise.all([
    db.$queryRawUnsafe<DayPoint[]>(
      `WITH days AS (
         SELECT generate_series(date_trunc('day', now() AT TIME ZONE 'UTC') - interval '29 days', date_trunc('day', now() AT TIME ZONE 'UTC'), interval '1 day') AS day
       ), points AS (
         SELECT date_trunc('day', "createdAt" AT TIME ZONE 'UTC') AS day,
                sum(points) FILTER (WHERE points > 0) AS issued,
                sum(-points) FILTER (WHERE type IN ('redeem', 'spend')) AS redeemed
         FROM "LedgerEntry" WHERE "programId" = $1::uuid AND "createdAt" >= now() - interval '31 days' GROUP BY 1
       ), members AS (
         SELECT date_trunc('day', "createdAt" AT TIME ZONE 'UTC') AS day, count(*) AS members
         FROM "Customer" WHERE "programId" = $1::uuid AND "createdAt" >= now() - interval '31 days' GROUP BY 1
       )
       SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(p.issued, 0)::int AS issued, coalesce(p.redeemed, 0)::int AS redeemed,
              coalesce(m.members, 0)::int AS members
       FROM days d LEFT JOIN points p ON p.day = d.day LEFT JOIN members m ON m.day = d.day ORDER BY d.day`,
      programId,
    ),
    db.$queryRawUnsafe<{ name: string; customers: number }[]>(
      `SELECT coalesce(t.name, 'No tier') AS name, count(*)::int AS customers
       FROM "CustomerTier" ct JOIN "Customer" c ON c.id = ct."customerId" LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
       WHERE c."programId" = $1::uuid AND c."deletedAt" IS NULL
       GROUP BY t.name, t."requiredPoints" ORDER BY t."requiredPoints" NULLS FIRST`,
      programId,
    ),
    db.$queryRawUnsafe<{ members: number }[]>(
      `SELECT count(*)::int AS members FROM "Customer" WHERE "programId" = $1::uuid AND "deletedAt" IS NULL`,
      programId,
    ),
  ]);
  const sum = (k: "issued" | "redeemed" | "members") => days.reduce((s, d) => s + Number(d[k]), 0);
  return {
    members: totals[0]?.members ?? 0,
    issued30: sum("issued"),
    redeemed30: sum("redeemed"),
    newMembers30: sum("members"),
    days: days.map((d) => ({ ...d, issued: Number(d.issued), redeemed: Number(d.redeemed), members: Number(d.members) })),
    tiers,
  };
}

export async function auditPage(db: Db, programId: string, options: { action?: string; staff?: string; before?: string | null }) {
  const take = 50;
  const rows = await db.auditLog.findMany({
    where: {
      programId,
      ...(options.action ? { action: options.action } : {}),
      ...(options.staff ? { staffEmail: { startsWith: options.staff.toLowerCase() } } : {}),
      ...(options.before ? { createdAt: { lt: new Date(options.before) } } : {}),
    },
    orderBy: { createdAt: "desc" },
    take: take + 1,
  });
  return { rows: rows.slice(0, take), next: rows.length > take ? rows[take - 1]!.createdAt.toISOString() : null };
}

export async function apiKeys(db: Db, programId: string) {
  return db.apiKey.findMany({
    where: { programId },
    orderBy: { createdAt: "desc" },
    select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  });
}
