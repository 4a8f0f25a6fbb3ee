import "server-only";
import { join, query, raw, sql, type Sql } from "@/lib/db/sql";
import { isoSql, type Db } from "@/lib/db/types";
import { SEARCH_LIMIT, searchCustomers } from "@/lib/staff/queries/customers/search";
import { couponPoolNotFound, notFound } from "@/lib/errors";
import { programNow } from "@/lib/domain/clock";
import { getSegment, previewSegment, segmentMembers } from "@/lib/domain/segments/store";
import { pointsAccounting, REPORT_FLOWS } from "@/lib/domain/accounting";
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
  select: Sql;
  from: Sql;
  /** What the up-front count reads, when it can skip the joins that only add columns (default: `from`). */
  countFrom?: Sql;
  where: Sql[];
  order: Sql;
  /** The conditions for rows after `cursor` (the `cursor` column of the last row read). */
  after: (cursor: string) => Sql;
}

/** (createdAt, id) keysets: `createdAt >= …` first, so the index range starts at the cursor instead of being filtered. */
const byTimeThenId = (table: "e" | "r" | "a") => {
  const [createdAt, id] = [raw(`${table}."createdAt"`), raw(`${table}.id`)];
  return {
    cursorSql: raw(`${isoSql(`${table}."createdAt"`, "us")} || '|' || ${table}.id::text`),
    order: sql`${createdAt}, ${id}`,
    after: (cursor: string) =>
      sql`${createdAt} >= split_part(${cursor}, '|', 1)::timestamptz AND (${createdAt}, ${id}) > (split_part(${cursor}, '|', 1)::timestamptz, split_part(${cursor}, '|', 2)::uuid)`,
  };
};

/** Prisma's raw query: PGlite's reader (on PostgreSQL exports read through lib/exports/pg-rows.ts). */
const prismaRows =
  (db: Db): RowReader =>
  (statement) =>
    query<Record<string, CsvCell>>(db, statement);

function sourceOf(db: Db, q: Query): ExportSource {
  const read = pgRowReader() ?? prismaRows(db);
  return {
    header: q.header,
    async count() {
      const [row] = await query<{ n: number }>(
        db,
        sql`SELECT count(*)::int AS n FROM ${q.countFrom ?? q.from} WHERE ${join(q.where, " AND ")}`,
      );
      return Number(row?.n ?? 0);
    },
    async batch(cursor, limit) {
      const where = cursor === null ? q.where : [...q.where, q.after(cursor)];
      const rows = await read(
        sql`SELECT ${q.select} FROM ${q.from} WHERE ${join(where, " AND ")} ORDER BY ${q.order} LIMIT ${limit}`,
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
export async function dayBounds(db: Db, programId: string, range: { from?: string; to?: string }) {
  const [row] = await query<{ from: Date | null; to: Date | null }>(
    db,
    sql`SELECT (${range.from ?? null}::date)::timestamp AT TIME ZONE p."timeZone" AS "from",
            (${range.to ?? null}::date + 1)::timestamp AT TIME ZONE p."timeZone" AS "to"
     FROM "Program" p WHERE p.id = ${programId}::uuid`,
  );
  if (!row) throw notFound("program");
  return { from: row.from?.toISOString() ?? null, to: row.to?.toISOString() ?? null };
}

/** Adds `column >= from` and `column < to` for the bounds that are set. */
function withinDays(q: Query, column: Sql, bounds: { from: string | null; to: string | null }): Query {
  const where = [...q.where];
  if (bounds.from) where.push(sql`${column} >= ${bounds.from}::timestamptz`);
  if (bounds.to) where.push(sql`${column} < ${bounds.to}::timestamptz`);
  return { ...q, where };
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
  const where = [sql`c."programId" = ${programId}::uuid`, sql`c."deletedAt" IS NULL`, sql`c.email IS NOT NULL`];
  if (ids) where.push(sql`c.id = ANY(${ids}::uuid[])`);
  if (tierId) where.push(sql`ct."currentTierId" = ${tierId}::uuid`);
  return sourceOf(db, {
    header: CUSTOMER_COLUMNS,
    select: sql`c.id, c.email, u."firstName", u."lastName", u.phone, u."externalCustomerId", l.balance, t.name AS tier,
             c.language, ${raw(isoSql('c."createdAt"'))} AS "createdAt", c.email AS cursor`,
    from: sql`"Customer" c
       JOIN "UserData" u ON u."customerId" = c.id
       JOIN "LoyaltyData" l ON l."programId" = c."programId" AND l."customerId" = c.id
       JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id
       LEFT JOIN "Tier" t ON t.id = ct."currentTierId"`,
    countFrom: sql`"Customer" c JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id`,
    where,
    // Byte-wise, as the list's e-mail sort, so the text_pattern_ops index serves the prefix and the order.
    order: sql`c.email USING ~<~`,
    after: (cursor) => sql`c.email ~>~ ${cursor}`,
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
        select: sql`e.id, ${raw(isoSql('e."createdAt"'))} AS "createdAt", e."customerId", c.email, e.type, e.points, e."balanceAfter",
                 e.source, e.actor, e.reason, ${raw(isoSql('e."expiresAt"'))} AS "expiresAt", ${keyset.cursorSql} AS cursor`,
        from: sql`"LedgerEntry" e JOIN "Customer" c ON c.id = e."customerId"`,
        // Every entry has its customer (a foreign key): the count needs no join.
        countFrom: sql`"LedgerEntry" e`,
        where: [sql`e."programId" = ${programId}::uuid`],
        order: keyset.order,
        after: keyset.after,
      },
      sql`e."createdAt"`,
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
        select: sql`r.id, ${raw(isoSql('r."createdAt"'))} AS "createdAt", r.code, r."rewardId", w.name AS reward, r.points,
                 r."customerId", c.email, r."ledgerEntryId" AS "transactionId", ${raw(isoSql('r."cancelledAt"'))} AS "cancelledAt",
                 ${keyset.cursorSql} AS cursor`,
        from: sql`"Redemption" r JOIN "Reward" w ON w.id = r."rewardId" JOIN "Customer" c ON c.id = r."customerId"`,
        countFrom: sql`"Redemption" r`,
        where: [sql`r."programId" = ${programId}::uuid`],
        order: keyset.order,
        after: keyset.after,
      },
      sql`r."createdAt"`,
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
    select: sql`co.code,
             CASE WHEN co."customerId" IS NULL THEN 'free' WHEN co."expiresAt" <= now() THEN 'expired' ELSE 'assigned' END AS status,
             co."customerId", c.email, ${raw(isoSql('co."assignedAt"'))} AS "assignedAt", ${raw(isoSql('co."expiresAt"'))} AS "expiresAt",
             ${raw(isoSql('co."createdAt"'))} AS "createdAt", co.code AS cursor`,
    from: sql`"Coupon" co LEFT JOIN "Customer" c ON c.id = co."customerId"`,
    where: [sql`co."poolId" = ${pool.id}::uuid`],
    // The (poolId, code) unique index, byte-wise.
    order: sql`co.code USING ~<~`,
    after: (cursor) => sql`co.code ~>~ ${cursor}`,
  });
}

/**
 * The program's audit log of the days `from`–`to`, oldest first, filtered like the audit page (action, staff, entity
 * type and id; lib/staff/queries/audit-log.ts).
 */
export async function auditLogExport(db: Db, programId: string, filter: ExportFilter<"audit-log">) {
  const keyset = byTimeThenId("a");
  const where = [sql`a."programId" = ${programId}::uuid`];
  if (filter.action) where.push(sql`a.action = ${filter.action}`);
  if (filter.staff?.trim()) where.push(sql`a."staffEmail" = ${filter.staff.trim().toLowerCase()}`);
  if (filter.type) where.push(sql`a."entityType" = ${filter.type}`);
  if (filter.entity?.trim()) where.push(sql`a."entityId" = ${filter.entity.trim()}`);
  return sourceOf(
    db,
    withinDays(
      {
        header: ["id", "createdAt", "staffEmail", "action", "entityType", "entityId", "before", "after"],
        select: sql`a.id, ${raw(isoSql('a."createdAt"'))} AS "createdAt", a."staffEmail", a.action, a."entityType", a."entityId",
                 a.before::text AS before, a.after::text AS after, ${keyset.cursorSql} AS cursor`,
        from: sql`"AuditLog" a`,
        where,
        order: keyset.order,
        after: keyset.after,
      },
      sql`a."createdAt"`,
      await dayBounds(db, programId, filter),
    ),
  );
}

/**
 * A segment's members now (API.md "Segments"), with the customers export's columns: the members read in keyset
 * batches by the segment's own query (`segmentMembers`, by customer id, at the program clock's now), each batch's
 * customers then read by id; the up-front count is the segment's live count. 404 for another program's segment.
 */
export async function segmentMembersExport(
  db: Db,
  programId: string,
  filter: ExportFilter<"segment-members">,
): Promise<ExportSource> {
  const segment = await getSegment(db, programId, filter.segment);
  const now = programNow(programId);
  return {
    header: CUSTOMER_COLUMNS,
    count: async () => (await previewSegment(db, programId, segment.filter, now)).count,
    async batch(cursor, limit) {
      const page = await segmentMembers(db, { programId, segmentId: segment.id, cursor, limit, now });
      const ids = page.data.map((m) => m.customerId);
      const { records } = ids.length
        ? await customersQuery(db, programId, null, ids).batch(null, ids.length)
        : { records: [] };
      return { records, cursor: page.nextCursor };
    },
  };
}

/**
 * The points accounting of the days `from`–`to` (the Finance page's table, lib/domain/accounting.ts): one row per
 * day, points and, when the program has a value per point, money. At most MAX_ACCOUNTING_DAYS rows, computed once
 * from the daily aggregates and handed out in batches.
 */
export async function pointsAccountingExport(
  db: Db,
  programId: string,
  filter: ExportFilter<"points-accounting">,
): Promise<ExportSource> {
  const report = await pointsAccounting(db, programId, filter.from, filter.to);
  const amounts = [...REPORT_FLOWS, "erased", "pendingOutstanding"] as const;
  const header = ["day", ...amounts, "breakage", "currency", ...amounts.map((a) => `${a}Money`)];
  const rows: CsvCell[][] = report.days.map((d) => [
    d.day,
    ...amounts.map((a) => d[a]),
    d.breakage,
    report.currency,
    ...amounts.map((a) => d.money?.[a] ?? null),
  ]);
  return {
    header,
    count: async () => rows.length,
    async batch(cursor, limit) {
      const start = cursor === null ? 0 : Number(cursor);
      const end = start + limit;
      return { records: rows.slice(start, end), cursor: end < rows.length ? String(end) : null };
    },
  };
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
    case "segment-members":
      return segmentMembersExport(db, programId, f);
    case "points-accounting":
      return pointsAccountingExport(db, programId, f);
  }
  throw notFound("export");
}
