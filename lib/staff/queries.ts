import type { z } from "zod";
import type { Customer } from "@/lib/api/schemas/customers";
import type { TransactionPage } from "@/lib/api/schemas/points";
import type { Db } from "@/lib/db/types";
import { isoSql } from "@/lib/db/types";
import { getCustomerJsonById } from "@/lib/domain/customers";
import { listTransactionsJson } from "@/lib/domain/points";
import type { Role } from "@/lib/domain/vocabulary";

/**
 * The dashboard's reads, one function per page. Written for a program of 1,000,000 customers: index-backed
 * prefix search, keyset pagination (no OFFSET), no count of the whole table per page.
 */

export const CUSTOMER_SORTS = ["email", "newest", "balance"] as const;
export type CustomerSort = (typeof CUSTOMER_SORTS)[number];

export interface CustomerRow {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  balance: number;
  tier: string | null;
  createdAt: string;
}

/** `prefix%` for LIKE: lower-cased (e-mails are stored lower-cased) with LIKE's own characters escaped. */
export const likePrefix = (prefix: string) => `${prefix.trim().toLowerCase().replace(/[\\%_]/g, "\\$&")}%`;

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/** The keyset of each sort: ORDER BY, the row's cursor, how rows after a cursor are found, what a cursor looks like. */
const SORTS: Record<CustomerSort, { order: string; key: string; after: (n: number) => string; valid: RegExp }> = {
  // Byte-wise, so the (programId, email text_pattern_ops) index serves the prefix and the order at once.
  email: { order: `c.email USING ~<~`, key: `c.email`, after: (n) => `c.email ~>~ $${n}`, valid: /^.+$/s },
  // (programId, createdAt) index; the id breaks ties.
  newest: {
    order: `c."createdAt" DESC, c.id DESC`,
    key: `to_char(c."createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || c.id::text`,
    after: (n) => `(c."createdAt", c.id) < (split_part($${n}, '|', 1)::timestamptz, split_part($${n}, '|', 2)::uuid)`,
    valid: new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z\\|${UUID}$`),
  },
  // LoyaltyData (balance DESC, customerId DESC) index; the customer id breaks ties.
  balance: {
    order: `l.balance DESC, l."customerId" DESC`,
    key: `l.balance::text || '|' || l."customerId"::text`,
    after: (n) => `(l.balance, l."customerId") < (split_part($${n}, '|', 1)::int8, split_part($${n}, '|', 2)::uuid)`,
    valid: new RegExp(`^\\d{1,10}\\|${UUID}$`),
  },
};

/**
 * One page of a program's customers: e-mail prefix (case-insensitive, index-backed `LIKE 'prefix%'`), tier,
 * sort, and an opaque keyset cursor for the next page — no OFFSET and no count of the table, so page 1,000 of
 * 1,000,000 customers costs what page 1 does.
 */
export async function searchCustomers(
  db: Db,
  programId: string,
  options: { prefix?: string; tierId?: string | null; sort?: CustomerSort; after?: string | null; limit?: number },
): Promise<{ rows: CustomerRow[]; next: string | null }> {
  const limit = Math.min(Math.max(options.limit ?? 25, 1), 100);
  const sort = SORTS[options.sort ?? "email"] ?? SORTS.email;
  const params: unknown[] = [programId];
  const where = [`c."programId" = $1::uuid`, `c."deletedAt" IS NULL`, `c.email IS NOT NULL`];
  if (options.prefix?.trim()) {
    params.push(likePrefix(options.prefix));
    where.push(`c.email LIKE $${params.length}`);
  }
  if (options.tierId) {
    params.push(options.tierId);
    where.push(`ct."currentTierId" = $${params.length}::uuid`);
  }
  // A cursor that is not one of ours (edited URL) starts from the first page.
  const cursor = options.after ? Buffer.from(options.after, "base64url").toString("utf8") : "";
  if (sort.valid.test(cursor)) {
    params.push(cursor);
    where.push(sort.after(params.length));
  }
  params.push(limit + 1);
  const rows = await db.$queryRawUnsafe<(CustomerRow & { cursor: string })[]>(
    `SELECT c.id, c.email, u."firstName", u."lastName", l.balance, t.name AS tier, ${isoSql('c."createdAt"')} AS "createdAt",
            ${sort.key} AS cursor
     FROM "Customer" c
       JOIN "UserData" u ON u."customerId" = c.id
       JOIN "LoyaltyData" l ON l."customerId" = c.id
       JOIN "CustomerTier" ct ON ct."customerId" = c.id
       LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
     WHERE ${where.join(" AND ")}
     ORDER BY ${sort.order} LIMIT $${params.length}`,
    ...params,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const next = rows.length > limit && last ? Buffer.from(last.cursor, "utf8").toString("base64url") : null;
  return { rows: page.map(({ cursor: _c, ...r }) => ({ ...r, balance: Number(r.balance) })), next };
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
  return {
    customer: JSON.parse(customerJson) as z.infer<typeof Customer>,
    tiers,
    history: JSON.parse(history) as z.infer<typeof TransactionPage>,
    redemptions,
    coupons,
    notifications,
    rewards,
    pools,
  };
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

export type Overview = Awaited<ReturnType<typeof overview>>;

const OVERVIEW_TTL_MS = 60_000;
const overviews = new Map<string, { at: number; value: Promise<Overview & { computedAt: string }> }>();

/**
 * The overview, computed at most once a minute per program and shared by concurrent viewers: on a program
 * with 1,000,000 customers and 5,000,000 ledger entries in the month its queries take about two seconds.
 */
export function cachedOverview(db: Db, programId: string) {
  const hit = overviews.get(programId);
  if (hit && Date.now() - hit.at < OVERVIEW_TTL_MS) return hit.value;
  const value = overview(db, programId).then((o) => ({ ...o, computedAt: new Date().toISOString() }));
  overviews.set(programId, { at: Date.now(), value });
  value.catch(() => overviews.delete(programId));
  return value;
}

/** One page (newest first) of the program's audit log, filtered by action and staff e-mail; keyset cursor. */
export async function auditPage(db: Db, programId: string, options: { action?: string; staff?: string; after?: string | null }) {
  const take = 50;
  const [at, id] = Buffer.from(options.after ?? "", "base64url").toString("utf8").split("|");
  const cursor = at && id && !Number.isNaN(Date.parse(at)) && /^[0-9a-f-]{36}$/.test(id) ? { at: new Date(at), id } : null;
  const rows = await db.auditLog.findMany({
    where: {
      programId,
      ...(options.action ? { action: options.action } : {}),
      ...(options.staff ? { staffEmail: options.staff } : {}),
      ...(cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: take + 1,
  });
  const last = rows.length > take ? rows[take - 1]! : null;
  return { rows: rows.slice(0, take), next: last ? Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString("base64url") : null };
}

/** Staff of the program, for the audit page's filter. */
export async function programStaff(db: Db, programId: string) {
  const members = await db.staffMembership.findMany({
    where: { programId },
    select: { role: true, staff: { select: { email: true } } },
    orderBy: { staff: { email: "asc" } },
  });
  return members.map((m) => ({ email: m.staff.email, role: m.role }));
}

export async function apiKeys(db: Db, programId: string) {
  return db.apiKey.findMany({
    where: { programId },
    orderBy: { createdAt: "desc" },
    select: { id: true, name: true, prefix: true, rateLimitPerSec: true, rateLimitBurst: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  });
}

/** The rewards page: every reward of the program (active or not) with its number of redemptions. */
export async function programRewards(db: Db, programId: string) {
  const rewards = await db.reward.findMany({
    where: { programId },
    orderBy: [{ active: "desc" }, { costPoints: "asc" }, { name: "asc" }],
    select: { id: true, name: true, description: true, image: true, costPoints: true, stock: true, active: true, _count: { select: { redemptions: true } } },
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
            (SELECT count(*) FROM "Coupon" c WHERE c."poolId" = p.id)::int AS total,
            (SELECT count(*) FROM "Coupon" c WHERE c."poolId" = p.id AND c."customerId" IS NULL)::int AS free
     FROM "CouponPool" p WHERE p."programId" = $1::uuid ORDER BY p.name`,
    programId,
  );
  return rows.map((r) => ({ ...r, total: Number(r.total), free: Number(r.free), assigned: Number(r.total) - Number(r.free) }));
}

/** The earning flows page: every flow of the program, by key. */
export async function earningFlows(db: Db, programId: string) {
  return db.earningFlow.findMany({ where: { programId }, orderBy: { key: "asc" } });
}

/** The webhooks page: the program's endpoints (never their secrets) and its push endpoint. */
export async function webhookSettings(db: Db, programId: string) {
  const [webhooks, program] = await Promise.all([
    db.webhook.findMany({ where: { programId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { id: true, url: true, active: true, createdAt: true } }),
    db.program.findUnique({ where: { id: programId }, select: { pushEndpointUrl: true } }),
  ]);
  return { webhooks, pushEndpointUrl: program?.pushEndpointUrl ?? null };
}

/**
 * One page (newest first) of the program's webhook and push deliveries, optionally of one status; keyset cursor
 * on (createdAt, id), served by the (programId, createdAt) index.
 */
export async function deliveryPage(db: Db, programId: string, options: { status?: string; after?: string | null; take?: number }) {
  const take = Math.min(Math.max(options.take ?? 25, 1), 100);
  const [at, id] = Buffer.from(options.after ?? "", "base64url").toString("utf8").split("|");
  const cursor = at && id && !Number.isNaN(Date.parse(at)) && /^[0-9a-f-]{36}$/.test(id) ? { at: new Date(at), id } : null;
  const rows = await db.delivery.findMany({
    where: {
      programId,
      ...(options.status ? { status: options.status } : {}),
      ...(cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: take + 1,
    select: {
      id: true,
      kind: true,
      url: true,
      status: true,
      attempts: true,
      lastStatusCode: true,
      lastError: true,
      nextAttemptAt: true,
      deliveredAt: true,
      createdAt: true,
      event: { select: { type: true } },
    },
  });
  const last = rows.length > take ? rows[take - 1]! : null;
  return {
    rows: rows.slice(0, take).map(({ event, ...d }) => ({ ...d, eventType: event?.type ?? (d.kind === "push" ? "notification" : "—") })),
    next: last ? Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString("base64url") : null,
  };
}

/** The staff page: everyone with a role in the program (never a password hash). */
export async function staffMembers(db: Db, programId: string) {
  const members = await db.staffMembership.findMany({
    where: { programId },
    select: { role: true, createdAt: true, staff: { select: { id: true, email: true, name: true, disabledAt: true } } },
    orderBy: { staff: { email: "asc" } },
  });
  return members.map((m) => ({ id: m.staff.id, email: m.staff.email, name: m.staff.name, role: m.role as Role, addedAt: m.createdAt, disabledAt: m.staff.disabledAt }));
}
