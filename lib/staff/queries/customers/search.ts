import "server-only";
import { empty, execute, join, query, raw, sql, type Sql } from "@/lib/db/sql";
import { isoSql, type Db, type Tx } from "@/lib/db/types";
import { UUID_PATTERN } from "@/lib/ids";
import { staffQuery } from "../../authz";

/**
 * The dashboard's search of customers: the customers list and the search box. Written for a program of 1,000,000
 * customers: every search branch index-backed (btree and pg_trgm GIN), keyset pagination (no OFFSET), no count of
 * the whole table per page.
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
const likePrefix = (prefix: string) => `${likeEscape(prefix.trim().toLowerCase())}%`;

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
const phoneDigits = (text: string) => text.replace(/\D/g, "");

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
  programId: string,
  q: string,
  limit: number,
  tierId: string | null,
  substrings: boolean,
): Sql[] {
  const text = q.trim();
  const lower = text.toLowerCase();
  const digits = phoneDigits(text);
  const looksLikePhone = digits.length >= MIN_PHONE_DIGITS && /^[\d\s()+.\-/]+$/.test(text);
  const words = lower.split(/\s+/).filter(Boolean);
  const branches: Sql[] = [];
  const inTier = (id: Sql) =>
    tierId
      ? sql` AND EXISTS (SELECT 1 FROM "CustomerTier" ct WHERE ct."customerId" = ${id} AND ct."currentTierId" = ${tierId}::uuid)`
      : empty;
  const customer = (rank: number, where: Sql, order = empty) =>
    sql`(SELECT c.id, ${rank}::int AS rank FROM "Customer" c WHERE c."programId" = ${programId}::uuid AND c."deletedAt" IS NULL AND ${where}${inTier(raw("c.id"))}${order} LIMIT ${limit})`;
  const user = (rank: number, where: Sql) =>
    sql`(SELECT u."customerId" AS id, ${rank}::int AS rank FROM "UserData" u WHERE u."programId" = ${programId}::uuid AND (${where})${inTier(raw('u."customerId"'))} LIMIT ${limit})`;
  const name = (first: string, last: string, single: string) =>
    words.length >= 2
      ? sql`(u."firstName" ILIKE ${first} AND u."lastName" ILIKE ${last})`
      : sql`u."firstName" ILIKE ${single} OR u."lastName" ILIKE ${single}`;
  const [w1 = "", ...rest] = words.map(likeEscape);
  const w2 = rest.join(" ");

  branches.push(customer(MATCH_RANKS.email_exact, sql`c.email = ${lower}`));
  branches.push(user(MATCH_RANKS.external_id_exact, sql`u."externalCustomerId" = ${text}`));
  if (looksLikePhone) branches.push(user(MATCH_RANKS.phone_exact, sql`u."phoneDigits" = ${digits}`));
  branches.push(
    customer(MATCH_RANKS.email_prefix, sql`c.email LIKE ${likePrefix(text)}`, sql` ORDER BY c.email USING ~<~`),
  );
  if (lower.length >= MIN_TRIGRAM && !looksLikePhone) {
    branches.push(user(MATCH_RANKS.name_exact, name(w1, w2, likeEscape(lower))));
    branches.push(user(MATCH_RANKS.name_prefix, name(w1, `${w2}%`, `${likeEscape(lower)}%`)));
    // E-mails have no spaces: "olivia smith" is a name, and its trigrams would match every olivia.smith e-mail.
    if (substrings && words.length === 1) {
      branches.push(customer(MATCH_RANKS.email_substring, sql`c.email LIKE ${`%${likeEscape(lower)}%`}`));
    }
    if (substrings)
      branches.push(user(MATCH_RANKS.name_substring, name(`%${w1}%`, `%${w2}%`, `%${likeEscape(lower)}%`)));
  }
  if (looksLikePhone) {
    branches.push(user(MATCH_RANKS.phone_prefix, sql`u."phoneDigits" LIKE ${`${digits}%`}`));
    // The number without its country or area code: the end of the digits, a prefix of the reversed digits.
    if (substrings)
      branches.push(
        user(MATCH_RANKS.phone_suffix, sql`u."phoneReversed" LIKE ${`${[...digits].reverse().join("")}%`}`),
      );
  }
  return branches;
}

/**
 * The keyset of each sort: ORDER BY, the row's cursor text, how rows after a cursor are found, what a cursor
 * looks like. The cursor is that text, base64url-encoded; each sort has its own, so the shared (at, id) codec of
 * lib/domain/cursor.ts does not fit all three.
 */
const SORTS: Record<CustomerSort, { order: Sql; key: Sql; after: (cursor: string) => Sql; valid: RegExp }> = {
  // Byte-wise, so the (programId, email text_pattern_ops) index serves the prefix and the order at once.
  email: {
    order: sql`c.email USING ~<~`,
    key: sql`c.email`,
    after: (cursor) => sql`c.email ~>~ ${cursor}`,
    valid: /^.+$/s,
  },
  // (programId, createdAt) index; the id breaks ties. Microseconds, so the cursor does not round.
  newest: {
    order: sql`c."createdAt" DESC, c.id DESC`,
    key: raw(`${isoSql('c."createdAt"', "us")} || '|' || c.id::text`),
    after: (cursor) =>
      sql`(c."createdAt", c.id) < (split_part(${cursor}, '|', 1)::timestamptz, split_part(${cursor}, '|', 2)::uuid)`,
    valid: new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z\\|${UUID_PATTERN}$`),
  },
  // LoyaltyData (balance DESC, customerId DESC) index; the customer id breaks ties.
  balance: {
    order: sql`l.balance DESC, l."customerId" DESC`,
    key: sql`l.balance::text || '|' || l."customerId"::text`,
    after: (cursor) =>
      sql`(l.balance, l."customerId") < (split_part(${cursor}, '|', 1)::int8, split_part(${cursor}, '|', 2)::uuid)`,
    valid: new RegExp(`^\\d{1,10}\\|${UUID_PATTERN}$`),
  },
};

const SELECT_ROW = raw(
  `SELECT c.id, c.email, u."firstName", u."lastName", l.balance, t.name AS tier, ${isoSql('c."createdAt"')} AS "createdAt"`,
);
const JOIN_ROW = sql`FROM "Customer" c
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
  const where = [sql`c."programId" = ${programId}::uuid`, sql`c."deletedAt" IS NULL`, sql`c.email IS NOT NULL`];
  if (filter.tierId) where.push(sql`ct."currentTierId" = ${filter.tierId}::uuid`);
  // A cursor that is not one of ours (edited URL) starts from the first page.
  const cursor = filter.after ? Buffer.from(filter.after, "base64url").toString("utf8") : "";
  if (sort.valid.test(cursor)) where.push(sort.after(cursor));
  const rows = await query<CustomerRow & { cursor: string }>(
    db,
    sql`${SELECT_ROW}, ${sort.key} AS cursor
     ${JOIN_ROW}
     WHERE ${join(where, " AND ")}
     ORDER BY ${sort.order} LIMIT ${limit + 1}`,
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
    await execute(tx, sql`SET LOCAL plan_cache_mode = force_custom_plan`);
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
  const branches = rankedBranches(programId, filter.q ?? "", limit, filter.tierId ?? null, substrings);
  return withCustomPlans(db, (tx) =>
    query<CustomerRow & { rank: number }>(
      tx,
      sql`WITH hits AS (${join(branches, "\n UNION ALL ")}),
          best AS (SELECT id, min(rank) AS rank FROM hits GROUP BY id)
     ${SELECT_ROW}, b.rank
     FROM best b JOIN "Customer" c ON c.id = b.id
       JOIN "UserData" u ON u."customerId" = c.id
       JOIN "LoyaltyData" l ON l."customerId" = c.id
       JOIN "CustomerTier" ct ON ct."customerId" = c.id
       LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
     WHERE c."deletedAt" IS NULL AND c.email IS NOT NULL
     ORDER BY b.rank, c.email USING ~<~ LIMIT ${limit}`,
    ),
  );
}

/** The search box: the 8 best matches of `q` (e-mail, name, phone, external id), as `{ data }`. */
export const quickSearch = staffQuery("customers.read", async (db, staff, q: string) => ({
  data: q.trim() ? (await searchCustomers(db, staff.programId, { q: q.slice(0, 200), limit: 8 })).rows : [],
}));
