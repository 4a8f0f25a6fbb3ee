import "server-only";
import { isoSql, type Db } from "@/lib/db/types";
import { SEARCH_LIMIT, searchCustomers } from "@/lib/staff/queries/customers";
import { couponPoolNotFound, notFound } from "@/lib/errors";
import type { CsvCell } from "./csv-options";
import { pgRowReader, type RowReader } from "./pg-rows";
import type { ExportFilter, ExportKind } from "./kinds";

/**
 * The one place for what each CSV export reads: its columns and one keyset batch of its rows. An export is read in
 * batches of EXPORT_BATCH_ROWS rows, each a separate indexed statement that starts after the last row of the batch
 * before (no OFFSET, no transaction held open), so memory stays constant whatever the size and other requests run
 * between batches — on PGlite too, where one connection serves every request. On PostgreSQL a server-side cursor
 * would read one snapshot; batches do not, so a row changed during a long export shows as whichever batch read it.
 * The ledger, redemptions and the audit log are append-only and bounded by the day range, so their rows are fixed.
 * Batches of 1,000 rows (5,000 before): per-batch garbage stays small enough to die young; the statement per batch
 * costs little next to the rows. On PostgreSQL the batches are read with pg directly (lib/exports/pg-rows.ts).
 */

export const EXPORT_BATCH_ROWS = 1_000;

/** What the route and the CLI need of an export: its header, a count up front, and batches after a cursor. */
export interface ExportSource {
  header: readonly string[];
  count(): Promise<number>;
  /** Up to `limit` rows after `cursor` (null: from the start), each as cells in header order, and the next cursor. */
  batch(cursor: string | null, limit: number): Promise<{ records: CsvCell[][]; cursor: string | null }>;
}

interface Query {
  header: readonly string[];
  /** SELECT list producing the header's columns by name, plus `cursor` (the row's keyset as text). */
  select: string;
  from: string;
  /** What the up-front count reads, when it can skip the joins that only add columns (default: `from`). */
  countFrom?: string;
  where: string[];
  params: unknown[];
  order: string;
  /** The conditions for rows after the cursor `$n` (text). */
  after: (n: number) => string;
}

/** (createdAt, id) keysets: `createdAt >= …` first, so the index range starts at the cursor instead of being filtered. */
const byTimeThenId = (table: string) => ({
  cursorSql: `${isoSql(`${table}."createdAt"`, "us")} || '|' || ${table}.id::text`,
  order: `${table}."createdAt", ${table}.id`,
  after: (n: number) =>
    `${table}."createdAt" >= split_part($${n}, '|', 1)::timestamptz AND (${table}."createdAt", ${table}.id) > (split_part($${n}, '|', 1)::timestamptz, split_part($${n}, '|', 2)::uuid)`,
});

/** Prisma's raw query: PGlite's reader (on PostgreSQL exports read through lib/exports/pg-rows.ts). */
const prismaRows =
  (db: Db): RowReader =>
  (sql, params) =>
    db.$queryRawUnsafe<Record<string, CsvCell>[]>(sql, ...params);

function sourceOf(db: Db, q: Query): ExportSource {
  const read = pgRowReader() ?? prismaRows(db);
  return {
    header: q.header,
    async count() {
      const [row] = await db.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM ${q.countFrom ?? q.from} WHERE ${q.where.join(" AND ")}`,
        ...q.params,
      );
      return Number(row?.n ?? 0);
    },
    async batch(cursor, limit) {
      const params = [...q.params];
      const where = [...q.where];
      if (cursor !== null) {
        params.push(cursor);
        where.push(q.after(params.length));
      }
      params.push(limit);
      const rows = await read(
        `SELECT ${q.select} FROM ${q.from} WHERE ${where.join(" AND ")} ORDER BY ${q.order} LIMIT $${params.length}`,
        params,
      );
      const last = rows.at(-1);
      return {
        records: rows.map((r) => q.header.map((h) => r[h] ?? null)),
        cursor: rows.length === limit && last ? String(last.cursor) : null,
      };
    },
  };
}

/** Days (YYYY-MM-DD, the program's time zone, both included) as instants [from, to), with the program's zone. */
async function dayBounds(db: Db, programId: string, range: { from?: string; to?: string }) {
  const [row] = await db.$queryRawUnsafe<{ from: Date | null; to: Date | null }[]>(
    `SELECT ($2::date)::timestamp AT TIME ZONE p."timeZone" AS "from",
            ($3::date + 1)::timestamp AT TIME ZONE p."timeZone" AS "to"
     FROM "Program" p WHERE p.id = $1::uuid`,
    programId,
    range.from ?? null,
    range.to ?? null,
  );
  if (!row) throw notFound("program");
  return { from: row.from?.toISOString() ?? null, to: row.to?.toISOString() ?? null };
}

/** Adds `column >= from` and `column < to` for the bounds that are set. */
function withinDays(q: Query, column: string, bounds: { from: string | null; to: string | null }): Query {
  const where = [...q.where];
  const params = [...q.params];
  if (bounds.from) {
    params.push(bounds.from);
    where.push(`${column} >= $${params.length}::timestamptz`);
  }
  if (bounds.to) {
    params.push(bounds.to);
    where.push(`${column} < $${params.length}::timestamptz`);
  }
  return { ...q, where, params };
}

/**
 * The customers export: what the customers list shows for the same filter. Without text, every live customer (of the
 * tier, if one is chosen) in e-mail order, streamed in keyset batches served by the (programId, email
 * text_pattern_ops) index like the list. With text, the list shows the best matches of the ranked search
 * (`searchCustomers`, at most SEARCH_LIMIT), and the export is exactly those customers.
 */
export function customersExport(db: Db, programId: string, filter: ExportFilter<"customers">): ExportSource {
  const q = filter.q?.trim();
  if (!q) return customersQuery(db, programId, filter.tier ?? null, null);
  let matched: Promise<ExportSource> | null = null;
  const source = () =>
    (matched ??= searchCustomers(db, programId, { q, tierId: filter.tier ?? null, limit: SEARCH_LIMIT }).then(
      ({ rows }) =>
        customersQuery(
          db,
          programId,
          null,
          rows.map((r) => r.id),
        ),
    ));
  return {
    header: CUSTOMER_COLUMNS,
    count: async () => (await source()).count(),
    batch: async (cursor, limit) => (await source()).batch(cursor, limit),
  };
}

const CUSTOMER_COLUMNS = [
  "id",
  "email",
  "firstName",
  "lastName",
  "phone",
  "externalCustomerId",
  "balance",
  "tier",
  "language",
  "createdAt",
] as const;

function customersQuery(db: Db, programId: string, tierId: string | null, ids: string[] | null): ExportSource {
  const params: unknown[] = [programId];
  const where = [`c."programId" = $1::uuid`, `c."deletedAt" IS NULL`, `c.email IS NOT NULL`];
  if (ids) {
    params.push(ids);
    where.push(`c.id = ANY($${params.length}::uuid[])`);
  }
  if (tierId) {
    params.push(tierId);
    where.push(`ct."currentTierId" = $${params.length}::uuid`);
  }
  return sourceOf(db, {
    header: CUSTOMER_COLUMNS,
    select: `c.id, c.email, u."firstName", u."lastName", u.phone, u."externalCustomerId", l.balance, t.name AS tier,
             c.language, ${isoSql('c."createdAt"')} AS "createdAt", c.email AS cursor`,
    from: `"Customer" c
       JOIN "UserData" u ON u."customerId" = c.id
       JOIN "LoyaltyData" l ON l."programId" = c."programId" AND l."customerId" = c.id
       JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id
       LEFT JOIN "Tier" t ON t.id = ct."currentTierId"`,
    countFrom: `"Customer" c JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id`,
    where,
    params,
    // Byte-wise, as the list's e-mail sort, so the text_pattern_ops index serves the prefix and the order.
    order: `c.email USING ~<~`,
    after: (n) => `c.email ~>~ $${n}`,
  });
}

/** The points ledger of the days `from`–`to`, oldest first, with each entry's customer e-mail (empty once erased). */
export async function ledgerExport(db: Db, programId: string, filter: ExportFilter<"ledger">) {
  const keyset = byTimeThenId("e");
  return sourceOf(
    db,
    withinDays(
      {
        header: [
          "id",
          "createdAt",
          "customerId",
          "email",
          "type",
          "points",
          "balanceAfter",
          "source",
          "actor",
          "reason",
          "expiresAt",
        ],
        select: `e.id, ${isoSql('e."createdAt"')} AS "createdAt", e."customerId", c.email, e.type, e.points, e."balanceAfter",
                 e.source, e.actor, e.reason, ${isoSql('e."expiresAt"')} AS "expiresAt", ${keyset.cursorSql} AS cursor`,
        from: `"LedgerEntry" e JOIN "Customer" c ON c.id = e."customerId"`,
        // Every entry has its customer (a foreign key): the count needs no join.
        countFrom: `"LedgerEntry" e`,
        where: [`e."programId" = $1::uuid`],
        params: [programId],
        order: keyset.order,
        after: keyset.after,
      },
      'e."createdAt"',
      await dayBounds(db, programId, filter),
    ),
  );
}

/** Redemptions of the days `from`–`to`, oldest first: code, reward, points, customer, and when it was cancelled (void). */
export async function redemptionsExport(db: Db, programId: string, filter: ExportFilter<"redemptions">) {
  const keyset = byTimeThenId("r");
  return sourceOf(
    db,
    withinDays(
      {
        header: [
          "id",
          "createdAt",
          "code",
          "rewardId",
          "reward",
          "points",
          "customerId",
          "email",
          "transactionId",
          "cancelledAt",
        ],
        select: `r.id, ${isoSql('r."createdAt"')} AS "createdAt", r.code, r."rewardId", w.name AS reward, r.points,
                 r."customerId", c.email, r."ledgerEntryId" AS "transactionId", ${isoSql('r."cancelledAt"')} AS "cancelledAt",
                 ${keyset.cursorSql} AS cursor`,
        from: `"Redemption" r JOIN "Reward" w ON w.id = r."rewardId" JOIN "Customer" c ON c.id = r."customerId"`,
        countFrom: `"Redemption" r`,
        where: [`r."programId" = $1::uuid`],
        params: [programId],
        order: keyset.order,
        after: keyset.after,
      },
      'r."createdAt"',
      await dayBounds(db, programId, filter),
    ),
  );
}

/** The codes of one pool of the program (404 for another program's pool), by code: free, assigned or expired. */
export async function couponCodesExport(db: Db, programId: string, filter: ExportFilter<"coupon-codes">) {
  const pool = await db.couponPool.findFirst({ where: { id: filter.pool, programId }, select: { id: true } });
  if (!pool) throw couponPoolNotFound();
  return sourceOf(db, {
    header: ["code", "status", "customerId", "email", "assignedAt", "expiresAt", "createdAt"],
    select: `co.code,
             CASE WHEN co."customerId" IS NULL THEN 'free' WHEN co."expiresAt" <= now() THEN 'expired' ELSE 'assigned' END AS status,
             co."customerId", c.email, ${isoSql('co."assignedAt"')} AS "assignedAt", ${isoSql('co."expiresAt"')} AS "expiresAt",
             ${isoSql('co."createdAt"')} AS "createdAt", co.code AS cursor`,
    from: `"Coupon" co LEFT JOIN "Customer" c ON c.id = co."customerId"`,
    where: [`co."poolId" = $1::uuid`],
    params: [pool.id],
    // The (poolId, code) unique index, byte-wise.
    order: `co.code USING ~<~`,
    after: (n) => `co.code ~>~ $${n}`,
  });
}

/** The program's audit log of the days `from`–`to`, oldest first, filtered like the audit page (action, staff). */
export async function auditLogExport(db: Db, programId: string, filter: ExportFilter<"audit-log">) {
  const keyset = byTimeThenId("a");
  const where = [`a."programId" = $1::uuid`];
  const params: unknown[] = [programId];
  if (filter.action) {
    params.push(filter.action);
    where.push(`a.action = $${params.length}`);
  }
  if (filter.staff?.trim()) {
    params.push(filter.staff.trim().toLowerCase());
    where.push(`a."staffEmail" = $${params.length}`);
  }
  return sourceOf(
    db,
    withinDays(
      {
        header: ["id", "createdAt", "staffEmail", "action", "entityType", "entityId", "before", "after"],
        select: `a.id, ${isoSql('a."createdAt"')} AS "createdAt", a."staffEmail", a.action, a."entityType", a."entityId",
                 a.before::text AS before, a.after::text AS after, ${keyset.cursorSql} AS cursor`,
        from: `"AuditLog" a`,
        where,
        params,
        order: keyset.order,
        after: keyset.after,
      },
      'a."createdAt"',
      await dayBounds(db, programId, filter),
    ),
  );
}

/** The source of `kind` for the program, its filter already validated by EXPORT_FILTERS[kind]. */
export async function exportSource<K extends ExportKind>(
  db: Db,
  programId: string,
  kind: K,
  filter: ExportFilter<K>,
): Promise<ExportSource> {
  const f = filter as never;
  switch (kind) {
    case "customers":
      return customersExport(db, programId, f);
    case "ledger":
      return ledgerExport(db, programId, f);
    case "redemptions":
      return redemptionsExport(db, programId, f);
    case "coupon-codes":
      return couponCodesExport(db, programId, f);
    case "audit-log":
      return auditLogExport(db, programId, f);
  }
  throw notFound("export");
}
