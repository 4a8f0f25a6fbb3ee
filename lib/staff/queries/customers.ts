import "server-only";
import type { z } from "zod";
import type { Customer } from "@/lib/api/schemas/customers";
import type { TransactionPage } from "@/lib/api/schemas/points";
import { isoSql, type Db } from "@/lib/db/types";
import { UUID_PATTERN } from "@/lib/ids";
import { getCustomerJsonById } from "@/lib/domain/customers";
import { findCustomer, requireCustomer } from "@/lib/domain/customer-lookup";
import { listTransactionsJson } from "@/lib/domain/points";
import { staffQuery } from "../authz";
import { programTiers } from "./catalogue";

/**
 * The dashboard's reads of customers: the search (list page and search box), one customer's page, its points
 * history. Written for a program of 1,000,000 customers: index-backed prefix search, keyset pagination (no
 * OFFSET), no count of the whole table per page.
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
export const likePrefix = (prefix: string) =>
  `${prefix
    .trim()
    .toLowerCase()
    .replace(/[\\%_]/g, "\\$&")}%`;

/**
 * The keyset of each sort: ORDER BY, the row's cursor text, how rows after a cursor are found, what a cursor
 * looks like. The cursor is that text, base64url-encoded; each sort has its own, so the shared (at, id) codec of
 * lib/domain/cursor.ts does not fit all three.
 */
const SORTS: Record<CustomerSort, { order: string; key: string; after: (n: number) => string; valid: RegExp }> = {
  // Byte-wise, so the (programId, email text_pattern_ops) index serves the prefix and the order at once.
  email: { order: `c.email USING ~<~`, key: `c.email`, after: (n) => `c.email ~>~ $${n}`, valid: /^.+$/s },
  // (programId, createdAt) index; the id breaks ties. Microseconds, so the cursor does not round.
  newest: {
    order: `c."createdAt" DESC, c.id DESC`,
    key: `${isoSql('c."createdAt"', "us")} || '|' || c.id::text`,
    after: (n) => `(c."createdAt", c.id) < (split_part($${n}, '|', 1)::timestamptz, split_part($${n}, '|', 2)::uuid)`,
    valid: new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z\\|${UUID_PATTERN}$`),
  },
  // LoyaltyData (balance DESC, customerId DESC) index; the customer id breaks ties.
  balance: {
    order: `l.balance DESC, l."customerId" DESC`,
    key: `l.balance::text || '|' || l."customerId"::text`,
    after: (n) => `(l.balance, l."customerId") < (split_part($${n}, '|', 1)::int8, split_part($${n}, '|', 2)::uuid)`,
    valid: new RegExp(`^\\d{1,10}\\|${UUID_PATTERN}$`),
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
       JOIN "LoyaltyData" l ON l."programId" = c."programId" AND l."customerId" = c.id
       JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id
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

/** The search box: the first 8 customers whose e-mail starts with `q`, as `{ data }`. */
export const quickSearch = staffQuery("customers.read", async (db, staff, q: string) => ({
  data: (await searchCustomers(db, staff.programId, { prefix: q, limit: 8 })).rows,
}));

/** One page (20 entries, newest first) of a customer's points history, after `cursor` (from the previous page). */
export const customerTransactions = staffQuery(
  "customers.read",
  async (db, staff, customerId: string, cursor: string | null) => {
    const customer = await requireCustomer(db, staff.programId, customerId);
    return JSON.parse(await listTransactionsJson(db, customer.id, 20, cursor)) as z.infer<typeof TransactionPage>;
  },
);

/** Everything the customer page shows, in parallel; null when the id names no live customer of the program. */
export async function customerProfile(db: Db, programId: string, customerId: string) {
  if (!(await findCustomer(db, programId, customerId))) return null;
  const [customerJson, tiers, history, redemptions, coupons, notifications, rewards, pools] = await Promise.all([
    getCustomerJsonById(db, programId, customerId),
    programTiers(db, programId),
    listTransactionsJson(db, customerId, 20),
    db.redemption.findMany({
      where: { customerId },
      orderBy: { createdAt: "desc" },
      take: 20,
      include: { reward: { select: { name: true } } },
    }),
    db.coupon.findMany({
      where: { programId, customerId },
      orderBy: { assignedAt: "desc" },
      take: 20,
      include: { pool: { select: { name: true } } },
    }),
    db.notification.findMany({ where: { customerId }, orderBy: { createdAt: "desc" }, take: 20 }),
    db.reward.findMany({
      where: { programId, active: true },
      orderBy: { costPoints: "asc" },
      select: { id: true, name: true, costPoints: true, stock: true },
    }),
    db.couponPool.findMany({ where: { programId }, orderBy: { name: "asc" }, select: { id: true, name: true } }),
  ]);
  // Deleted between the two reads: as missing as before them.
  if (!customerJson) return null;
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
