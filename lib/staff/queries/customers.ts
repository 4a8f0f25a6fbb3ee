import "server-only";
import type { z } from "zod";
import type { Customer } from "@/lib/api/schemas/customers";
import type { TransactionPage } from "@/lib/api/schemas/points";
import { isoSql, type Db, type Tx } from "@/lib/db/types";
import { UUID_PATTERN } from "@/lib/ids";
import { getCustomerJsonById } from "@/lib/domain/customer-read";
import { findCustomer, requireCustomer } from "@/lib/domain/customer-lookup";
import { listTransactionsJson } from "@/lib/domain/points";
import { findBalanceExplained } from "@/lib/domain/balance-explained";
import { decodeCursor, encodeCursor } from "@/lib/domain/cursor";
import { TIMELINE_KINDS, type TimelineKind } from "../forms";
import { staffQuery } from "../authz";
import { programTiers } from "./catalogue";

/**
 * The dashboard's reads of customers: the search (list page and search box), one customer's page, its points
 * timeline. Written for a program of 1,000,000 customers: every search branch index-backed (btree and pg_trgm GIN),
 * keyset pagination (no OFFSET), no count of the whole table per page.
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
  /** How the row matched the search text (absent when listing without one). */
  match?: MatchKind;
}

/** LIKE's own characters escaped, so typed text matches literally. */
const likeEscape = (text: string) => text.replace(/[\\%_]/g, "\\$&");

/** `prefix%` for LIKE: lower-cased (e-mails are stored lower-cased) with LIKE's own characters escaped. */
export const likePrefix = (prefix: string) => `${likeEscape(prefix.trim().toLowerCase())}%`;

/** What the customers list and the search box filter on; an export of "the current search" takes the same object. */
export interface CustomerFilter {
  /** Free text: e-mail, name, phone or external customer id (see `rankedSearch`). */
  q?: string;
  tierId?: string | null;
  sort?: CustomerSort;
  after?: string | null;
  limit?: number;
}

export type MatchKind = keyof typeof MATCH_RANKS;

/** The most a text search answers (one page): it finds a person, it does not list a segment. */
export const SEARCH_LIMIT = 50;

/**
 * How well a customer matches the search text, best first. Exact beats prefix beats substring; within each, the
 * e-mail beats the external id, the phone, then the name (an e-mail or an id names one person, a name many).
 */
export const MATCH_RANKS = {
  email_exact: 0,
  external_id_exact: 1,
  phone_exact: 2,
  name_exact: 3,
  email_prefix: 10,
  phone_prefix: 12,
  name_prefix: 13,
  email_substring: 20,
  phone_suffix: 22,
  name_substring: 23,
} as const;

/** The digits of a phone number as typed ("+34 612-34 56 78" → "34612345678"), the form UserData.phoneDigits keeps. */
export const phoneDigits = (text: string) => text.replace(/\D/g, "");

/** Phone matching needs this many digits, so a house number or a year in the text does not match phones. */
const MIN_PHONE_DIGITS = 4;
/** Substring (and name) matching needs this many characters: pg_trgm indexes trigrams, shorter text cannot use them. */
const MIN_TRIGRAM = 3;

/**
 * The search text's candidate queries, one per (field, match kind), each bounded by `LIMIT` and served by an
 * index: the (programId, email text_pattern_ops) btree for e-mail exact and prefix, the unique (programId,
 * externalCustomerId) for the id, pg_trgm GIN indexes for e-mail substring and first and last name exact, prefix and
 * substring (gin_trgm_ops answers `=`, LIKE and ILIKE alike), and btree text_pattern_ops indexes on the phone's digits and
 * on the same reversed (exact, prefix, suffix). A customer found by several keeps its best rank.
 */
function rankedBranches(
  q: string,
  add: (value: unknown) => string,
  limit: number,
  tierId: string | null,
  substrings: boolean,
): string[] {
  const text = q.trim();
  const lower = text.toLowerCase();
  const digits = phoneDigits(text);
  const looksLikePhone = digits.length >= MIN_PHONE_DIGITS && /^[\d\s()+.\-/]+$/.test(text);
  const words = lower.split(/\s+/).filter(Boolean);
  const branches: string[] = [];
  const tier = tierId ? add(tierId) : null;
  const inTier = (id: string) =>
    tier
      ? ` AND EXISTS (SELECT 1 FROM "CustomerTier" ct WHERE ct."customerId" = ${id} AND ct."currentTierId" = ${tier}::uuid)`
      : "";
  const customer = (rank: number, where: string, order = "") =>
    `(SELECT c.id, ${rank} AS rank FROM "Customer" c WHERE c."programId" = $1::uuid AND c."deletedAt" IS NULL AND ${where}${inTier("c.id")}${order} LIMIT ${limit})`;
  const user = (rank: number, where: string) =>
    `(SELECT u."customerId" AS id, ${rank} AS rank FROM "UserData" u WHERE u."programId" = $1::uuid AND (${where})${inTier('u."customerId"')} LIMIT ${limit})`;
  const name = (first: string, last: string, single: string) =>
    words.length >= 2
      ? `(u."firstName" ILIKE ${add(first)} AND u."lastName" ILIKE ${add(last)})`
      : `u."firstName" ILIKE ${add(single)} OR u."lastName" ILIKE ${add(single)}`;
  const [w1 = "", ...rest] = words.map(likeEscape);
  const w2 = rest.join(" ");

  branches.push(customer(MATCH_RANKS.email_exact, `c.email = ${add(lower)}`));
  branches.push(user(MATCH_RANKS.external_id_exact, `u."externalCustomerId" = ${add(text)}`));
  if (looksLikePhone) branches.push(user(MATCH_RANKS.phone_exact, `u."phoneDigits" = ${add(digits)}`));
  branches.push(
    customer(MATCH_RANKS.email_prefix, `c.email LIKE ${add(likePrefix(text))}`, ` ORDER BY c.email USING ~<~`),
  );
  if (lower.length >= MIN_TRIGRAM && !looksLikePhone) {
    branches.push(user(MATCH_RANKS.name_exact, name(w1, w2, likeEscape(lower))));
    branches.push(user(MATCH_RANKS.name_prefix, name(w1, `${w2}%`, `${likeEscape(lower)}%`)));
    // E-mails have no spaces: "olivia smith" is a name, and its trigrams would match every olivia.smith e-mail.
    if (substrings && words.length === 1) {
      branches.push(customer(MATCH_RANKS.email_substring, `c.email LIKE ${add(`%${likeEscape(lower)}%`)}`));
    }
    if (substrings)
      branches.push(
        user(
          MATCH_RANKS.name_substring,
          words.length >= 2
            ? name(`%${w1}%`, `%${w2}%`, "")
            : `u."firstName" ILIKE ${add(`%${likeEscape(lower)}%`)} OR u."lastName" ILIKE ${add(`%${likeEscape(lower)}%`)}`,
        ),
      );
  }
  if (looksLikePhone) {
    branches.push(user(MATCH_RANKS.phone_prefix, `u."phoneDigits" LIKE ${add(`${digits}%`)}`));
    // The number without its country or area code: the end of the digits, a prefix of the reversed digits.
    if (substrings)
      branches.push(
        user(MATCH_RANKS.phone_suffix, `u."phoneReversed" LIKE ${add(`${[...digits].reverse().join("")}%`)}`),
      );
  }
  return branches;
}

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

const SELECT_ROW = `SELECT c.id, c.email, u."firstName", u."lastName", l.balance, t.name AS tier, ${isoSql('c."createdAt"')} AS "createdAt"`;
const JOIN_ROW = `FROM "Customer" c
       JOIN "UserData" u ON u."customerId" = c.id
       JOIN "LoyaltyData" l ON l."programId" = c."programId" AND l."customerId" = c.id
       JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id
       LEFT JOIN "Tier" t ON t.id = ct."currentTierId"`;

/**
 * A program's customers as the list and the search box show them. Without `q`: every live customer, in `sort`
 * order, one keyset page after `after` (no OFFSET, no count of the table, so page 1,000 of 1,000,000 costs what
 * page 1 does). With `q`: the best matches of the text (see `MATCH_RANKS`), at most `limit` (≤ SEARCH_LIMIT),
 * best first then by e-mail, and no next page. `tierId` narrows both.
 */
export async function searchCustomers(
  db: Db,
  programId: string,
  filter: CustomerFilter,
): Promise<{ rows: CustomerRow[]; next: string | null }> {
  if (filter.q?.trim()) return { rows: await rankedSearch(db, programId, filter), next: null };
  const limit = Math.min(Math.max(filter.limit ?? 25, 1), 100);
  const sort = SORTS[filter.sort ?? "email"] ?? SORTS.email;
  const params: unknown[] = [programId];
  const where = [`c."programId" = $1::uuid`, `c."deletedAt" IS NULL`, `c.email IS NOT NULL`];
  if (filter.tierId) {
    params.push(filter.tierId);
    where.push(`ct."currentTierId" = $${params.length}::uuid`);
  }
  // A cursor that is not one of ours (edited URL) starts from the first page.
  const cursor = filter.after ? Buffer.from(filter.after, "base64url").toString("utf8") : "";
  if (sort.valid.test(cursor)) {
    params.push(cursor);
    where.push(sort.after(params.length));
  }
  params.push(limit + 1);
  const rows = await db.$queryRawUnsafe<(CustomerRow & { cursor: string })[]>(
    `${SELECT_ROW}, ${sort.key} AS cursor
     ${JOIN_ROW}
     WHERE ${where.join(" AND ")}
     ORDER BY ${sort.order} LIMIT $${params.length}`,
    ...params,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const next = rows.length > limit && last ? Buffer.from(last.cursor, "utf8").toString("base64url") : null;
  return { rows: page.map(({ cursor: _c, ...r }) => ({ ...r, balance: Number(r.balance) })), next };
}

/**
 * Runs `read` planned for its actual parameters. Statements are prepared once per connection (lib/db/adapter.ts), and
 * PostgreSQL switches a prepared statement to a generic plan after five runs; for LIKE patterns that is the wrong
 * plan: "%example%" (every row) and "%smith.12345%" (one row) need different ones (a scan that stops at `LIMIT`, the
 * trigram index). Measured at 1,000,000 customers: generic plans took seconds, custom ones milliseconds.
 */
async function withCustomPlans<T>(db: Db, read: (tx: Tx) => Promise<T>): Promise<T> {
  const run = async (tx: Tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL plan_cache_mode = force_custom_plan`);
    return read(tx);
  };
  return "$transaction" in db ? db.$transaction(run) : run(db);
}

/** The best `limit` matches of `filter.q`, best rank first, then by e-mail; each row says how it matched. */
async function rankedSearch(db: Db, programId: string, filter: CustomerFilter): Promise<CustomerRow[]> {
  const limit = Math.min(Math.max(filter.limit ?? 25, 1), SEARCH_LIMIT);
  // Exact and prefix matches first: as typed from the start they usually fill the page, and the substring
  // branches (trigram index scans over many rows for a short text) are then not needed.
  const first = await rankedPage(db, programId, filter, limit, false);
  // An exact e-mail or external id names one person: nothing else is looked for.
  const done = first.length >= limit || first.some((r) => Number(r.rank) <= MATCH_RANKS.external_id_exact);
  const rows = done ? first : await rankedPage(db, programId, filter, limit, true);
  const kind = Object.fromEntries(Object.entries(MATCH_RANKS).map(([k, v]) => [v, k])) as Record<number, MatchKind>;
  return rows.map(({ rank, ...r }) => ({ ...r, balance: Number(r.balance), match: kind[Number(rank)] }));
}

/** One run of the candidate queries (with or without the substring ones), best rank first, then by e-mail. */
async function rankedPage(db: Db, programId: string, filter: CustomerFilter, limit: number, substrings: boolean) {
  const params: unknown[] = [programId];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const branches = rankedBranches(filter.q ?? "", add, limit, filter.tierId ?? null, substrings);
  return withCustomPlans(db, (tx) =>
    tx.$queryRawUnsafe<(CustomerRow & { rank: number })[]>(
      `WITH hits AS (${branches.join("\n UNION ALL ")}),
          best AS (SELECT id, min(rank) AS rank FROM hits GROUP BY id)
     ${SELECT_ROW}, b.rank
     FROM best b JOIN "Customer" c ON c.id = b.id
       JOIN "UserData" u ON u."customerId" = c.id
       JOIN "LoyaltyData" l ON l."customerId" = c.id
       JOIN "CustomerTier" ct ON ct."customerId" = c.id
       LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
     WHERE c."deletedAt" IS NULL AND c.email IS NOT NULL
     ORDER BY b.rank, c.email USING ~<~ LIMIT ${limit}`,
      ...params,
    ),
  );
}

/** The search box: the 8 best matches of `q` (e-mail, name, phone, external id), as `{ data }`. */
export const quickSearch = staffQuery("customers.read", async (db, staff, q: string) => ({
  data: q.trim() ? (await searchCustomers(db, staff.programId, { q: q.slice(0, 200), limit: 8 })).rows : [],
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
  const [customerJson, tiers, timeline, rewards, pools, balance] = await Promise.all([
    getCustomerJsonById(db, programId, customerId),
    programTiers(db, programId),
    customerTimeline(db, programId, customerId),
    db.reward.findMany({
      where: { programId, active: true },
      orderBy: { costPoints: "asc" },
      select: { id: true, name: true, costPoints: true, stock: true },
    }),
    db.couponPool.findMany({ where: { programId }, orderBy: { name: "asc" }, select: { id: true, name: true } }),
    findBalanceExplained(db, programId, customerId),
  ]);
  // Deleted between the two reads: as missing as before them.
  if (!customerJson || !balance) return null;
  return {
    customer: JSON.parse(customerJson) as z.infer<typeof Customer>,
    tiers,
    timeline,
    rewards,
    pools,
    balance,
  };
}

/** One entry of the customer page's timeline. `by` is the staff member who did it, when one did. */
export interface TimelineEntry {
  kind: TimelineKind;
  id: string;
  at: string;
  /** The ledger type, the audit action, the reward, the coupon pool, the notification's title; "note" for notes. */
  title: string;
  /** The reason, the code, the category and status, the note's text, the fields a staff action changed. */
  detail: string | null;
  points: number | null;
  balanceAfter: number | null;
  source: string | null;
  by: { name: string | null; email: string } | null;
}

export interface TimelinePage {
  data: TimelineEntry[];
  nextCursor: string | null;
}

/** Audit actions the timeline shows through their own rows (the ledger entry, the note) rather than twice. */
const SHOWN_ELSEWHERE = ["balance.adjust", "customer.note", "balance.reverse"];

/**
 * Each source of the timeline, newest first, after the cursor position `$2`/`$3` (timestamp, id), at most `$4`
 * rows: each is served by an index that starts with the customer (the audit log's by its entity id).
 * Columns: kind, id, at, title, detail, points, balanceAfter, source, staff name and e-mail, audit before/after.
 */
const TIMELINE_SOURCES: Record<TimelineKind, string> = {
  points: `SELECT 'points' AS kind, e.id, e."createdAt" AS at, e.type AS title, e.reason AS detail, e.points,
      e."balanceAfter", e.source, s.name AS "staffName", s.email AS "staffEmail", NULL::jsonb AS before, NULL::jsonb AS after
    FROM "LedgerEntry" e LEFT JOIN "StaffUser" s ON e.actor LIKE 'staff:%' AND s.id::text = substr(e.actor, 7)
    WHERE e."customerId" = $1::uuid AND (e."createdAt", e.id) < ($2::timestamptz, $3::uuid)
    ORDER BY e."createdAt" DESC, e.id DESC LIMIT $4`,
  staff: `SELECT 'staff' AS kind, a.id AS id, a."createdAt" AS at, a.action AS title, NULL AS detail, NULL::int AS points, NULL::int AS "balanceAfter", NULL AS source, s.name AS "staffName", a."staffEmail" AS "staffEmail", a.before AS before, a.after AS after
    FROM "AuditLog" a LEFT JOIN "StaffUser" s ON s.id = a."staffId"
    WHERE a."entityId" = $1::text AND a."entityType" = 'customer' AND a."programId" = $5::uuid
      AND a.action <> ALL(ARRAY[${SHOWN_ELSEWHERE.map((a) => `'${a}'`).join(", ")}])
      AND (a."createdAt", a.id) < ($2::timestamptz, $3::uuid)
    ORDER BY a."createdAt" DESC, a.id DESC LIMIT $4`,
  redemption: `SELECT 'redemption' AS kind, r.id AS id, r."createdAt" AS at, w.name AS title,
      r.code || CASE WHEN r."cancelledAt" IS NOT NULL THEN ' · cancelled (void)' ELSE '' END AS detail, -r.points AS points, NULL::int AS "balanceAfter", NULL AS source, NULL AS "staffName", NULL AS "staffEmail", NULL::jsonb AS before, NULL::jsonb AS after
    FROM "Redemption" r JOIN "Reward" w ON w.id = r."rewardId"
    WHERE r."customerId" = $1::uuid AND (r."createdAt", r.id) < ($2::timestamptz, $3::uuid)
    ORDER BY r."createdAt" DESC, r.id DESC LIMIT $4`,
  coupon: `SELECT 'coupon' AS kind, c.id AS id, c."assignedAt" AS at, p.name AS title, c.code AS detail, NULL::int AS points, NULL::int AS "balanceAfter", NULL AS source, NULL AS "staffName", NULL AS "staffEmail", NULL::jsonb AS before, NULL::jsonb AS after
    FROM "Coupon" c JOIN "CouponPool" p ON p.id = c."poolId"
    WHERE c."customerId" = $1::uuid AND c."assignedAt" IS NOT NULL AND (c."assignedAt", c.id) < ($2::timestamptz, $3::uuid)
    ORDER BY c."assignedAt" DESC, c.id DESC LIMIT $4`,
  notification: `SELECT 'notification' AS kind, n.id AS id, n."createdAt" AS at, n.title AS title, n.category || ' · ' || n.status AS detail, NULL::int AS points, NULL::int AS "balanceAfter", NULL AS source, NULL AS "staffName", NULL AS "staffEmail", NULL::jsonb AS before, NULL::jsonb AS after
    FROM "Notification" n
    WHERE n."customerId" = $1::uuid AND (n."createdAt", n.id) < ($2::timestamptz, $3::uuid)
    ORDER BY n."createdAt" DESC, n.id DESC LIMIT $4`,
  note: `SELECT 'note' AS kind, n.id AS id, n."createdAt" AS at, 'note' AS title, n.body AS detail, NULL::int AS points, NULL::int AS "balanceAfter", NULL AS source, s.name AS "staffName", s.email AS "staffEmail", NULL::jsonb AS before, NULL::jsonb AS after
    FROM "CustomerNote" n LEFT JOIN "StaffUser" s ON s.id = n."staffId"
    WHERE n."customerId" = $1::uuid AND (n."createdAt", n.id) < ($2::timestamptz, $3::uuid)
    ORDER BY n."createdAt" DESC, n.id DESC LIMIT $4`,
};

/** The fields a staff action changed, in words: "firstName, phone" (values stay in the audit log). */
function changedFields(before: unknown, after: unknown): string | null {
  const obj = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const b = obj(before);
  const a = obj(after);
  if (a.redacted || b.redacted) return "details erased with the customer's personal data";
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter(
    (k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]) && k !== "updatedAt",
  );
  return keys.length ? `changed ${keys.join(", ")}` : null;
}

/**
 * One page of the customer's timeline: points movements (with the staff member for dashboard adjustments), staff
 * actions from the audit log, redemptions, coupons, notifications and internal notes, newest first, keyset-paged
 * by (time, id) across all of them; `kinds` narrows it. Each source reads at most a page through its own index.
 */
export async function customerTimeline(
  db: Db,
  programId: string,
  customerId: string,
  options: { cursor?: string | null; kinds?: readonly TimelineKind[]; limit?: number } = {},
): Promise<TimelinePage> {
  const limit = Math.min(Math.max(options.limit ?? 25, 1), 100);
  const kinds = options.kinds?.length ? options.kinds : TIMELINE_KINDS;
  const after = decodeCursor(options.cursor) ?? { at: "infinity", id: "ffffffff-ffff-ffff-ffff-ffffffffffff" };
  const rows = await db.$queryRawUnsafe<
    {
      kind: TimelineKind;
      id: string;
      at: string;
      title: string;
      detail: string | null;
      points: number | null;
      balanceAfter: number | null;
      source: string | null;
      staffName: string | null;
      staffEmail: string | null;
      before: unknown;
      after: unknown;
    }[]
  >(
    `SELECT kind, id, ${isoSql("at")} AS at, title, detail, points, "balanceAfter", source, "staffName", "staffEmail", before, after
     FROM (${kinds.map((k) => `(${TIMELINE_SOURCES[k]})`).join("\n UNION ALL ")}) t
     ORDER BY t.at DESC, t.id DESC LIMIT $4`,
    customerId,
    after.at,
    after.id,
    limit + 1,
    // $5 appears only in the audit log's query: a parameter no statement uses has no type and is refused.
    ...(kinds.includes("staff") ? [programId] : []),
  );
  const page = rows.slice(0, limit).map((r): TimelineEntry => ({
    kind: r.kind,
    id: r.id,
    at: r.at,
    title: r.title,
    detail: r.kind === "staff" ? changedFields(r.before, r.after) : r.detail,
    points: r.points === null ? null : Number(r.points),
    balanceAfter: r.balanceAfter === null ? null : Number(r.balanceAfter),
    source: r.source,
    by: r.staffEmail ? { name: r.staffName, email: r.staffEmail } : null,
  }));
  const last = page.at(-1);
  return { data: page, nextCursor: rows.length > limit && last ? encodeCursor(last.at, last.id) : null };
}

/** The timeline as the dashboard reads it: `kinds` from `?kind=` (unknown ones ignored), 404 for another program's customer. */
export const customerTimelinePage = staffQuery(
  "customers.read",
  async (db, staff, customerId: string, cursor: string | null, kinds: string[]) => {
    const customer = await requireCustomer(db, staff.programId, customerId);
    const known = kinds.filter((k): k is TimelineKind => (TIMELINE_KINDS as readonly string[]).includes(k));
    return customerTimeline(db, staff.programId, customer.id, { cursor, kinds: known });
  },
);
