import "server-only";
import { customPlan, empty, join, query, raw, sql, type Sql } from "@/lib/db/sql";
import { isoSql, type Db } from "@/lib/db/types";
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
/** An e-mail substring with an "@" after this many characters asks the trigram index for those (`emailContains`). */
const MIN_LOCAL_PART = 6;

/**
 * `c.email` contains `text` (lower-cased), as the trigram index serves it best. The index answers LIKE by reading the
 * posting list of every trigram of the pattern, and a domain's trigrams are in nearly every e-mail ("example",
 * "gmail.com": 1,000,000 rows each at 1,000,000 customers): for "smith.12345@example" that was ~2,400 index pages to
 * find one row. So when the text holds an "@" after at least `MIN_LOCAL_PART` characters (a fragment of a local part
 * that long is rare), the index is asked for that part and the "@" ("smith.12345@", ~180 pages; the "@" is in no
 * trigram, but it tells pg_trgm that "12345" ends there) and each candidate is checked against the whole text; the
 * matches are the same. The check is written on `c.email || ''` so that no index serves it and the planner estimates
 * it from the pattern's length (rare): with an estimate of the part alone, a common part could make it walk the
 * e-mail btree in order looking for a page of matches of the whole text that may not exist. A shorter part
 * ("son@example") keeps the whole pattern, whose estimate tells a common text (walk the btree) from a rare one (the
 * index).
 */
function emailContains(text: string): Sql {
  const at = text.indexOf("@");
  const whole = `%${likeEscape(text)}%`;
  if (at < MIN_LOCAL_PART) return sql`c.email LIKE ${whole}`;
  return sql`c.email LIKE ${`%${likeEscape(text.slice(0, at + 1))}%`} AND (c.email || '') LIKE ${whole}`;
}

/** One candidate query: the customers it finds (at most the page), each with its rank and its place in the rank. */
type Branch = Sql;

/**
 * The search text's candidate queries in three waves, one query per (field, match kind), each served by an index in
 * the order of its sort key and stopped at the page size (`LIMIT`), so a text matching half the program reads one
 * page of it, not half the program:
 * 1. exact and prefix: e-mail (the (programId, email text_pattern_ops) btree, `=` and a range scan for the prefix),
 *    external id (unique (programId, externalCustomerId)), phone digits (btree text_pattern_ops, `=` and prefix),
 *    first and last name (btrees on (programId, lower(name) text_pattern_ops, lower(other name), customerId):
 *    `lower(x) LIKE lower(y)` is what ILIKE does, so the matches are ILIKE's);
 * 2. substring: e-mail (pg_trgm GIN when the text is rare, the e-mail btree walked in order when it is common: the
 *    planner picks on the actual text, the statement being a `customPlan`; see `emailContains`) and the phone's last
 *    digits (a prefix of the reversed digits); only when wave 1 found fewer than a page and no exact e-mail or
 *    external id (which names one person);
 * 3. name substring (pg_trgm GIN on the names), only when waves 1 and 2 together found fewer than a page: ranking
 *    after every other kind, it could not enter a full page.
 * Each row carries its rank and its sort key within the rank (`k1`, `k2`, then the customer id): the e-mail for an
 * e-mail match, the digits for a phone match, the matched name then the other name for a name match. A customer
 * found by several keeps its best (rank, key); the page is the first `limit` in (rank, k1, k2, id) order, the same
 * rows as ranking every match, because each query answers the first `limit` of its own matches in that order.
 */
function rankedWaves(
  programId: string,
  q: string,
  limit: number,
  tierId: string | null,
): [Branch[], Branch[], Branch[]] {
  const text = q.trim();
  const lower = text.toLowerCase();
  const digits = phoneDigits(text);
  const looksLikePhone = digits.length >= MIN_PHONE_DIGITS && /^[\d\s()+.\-/]+$/.test(text);
  const words = lower.split(/\s+/).filter(Boolean);
  const waves: [Branch[], Branch[], Branch[]] = [[], [], []];
  const inTier = (id: Sql) =>
    tierId
      ? sql` AND EXISTS (SELECT 1 FROM "CustomerTier" ct WHERE ct."customerId" = ${id} AND ct."currentTierId" = ${tierId}::uuid)`
      : empty;
  /** A query on Customer (e-mail matches), its key the e-mail, in the e-mail btree's byte order. */
  const byEmail = (rank: number, where: Sql) =>
    sql`(SELECT c.id, ${rank}::int AS rank, c.email AS k1, ''::text AS k2 FROM "Customer" c WHERE c."programId" = ${programId}::uuid AND c."deletedAt" IS NULL AND ${where}${inTier(raw("c.id"))} ORDER BY c.email USING ~<~ LIMIT ${limit})`;
  /** A query on UserData, its key `k1`, `k2` (expressions the serving index is ordered by), then the customer id. */
  const user = (rank: number, where: Sql, k1: Sql, k2: Sql = sql`''::text`) =>
    sql`(SELECT u."customerId" AS id, ${rank}::int AS rank, ${k1} AS k1, ${k2} AS k2 FROM "UserData" u WHERE u."programId" = ${programId}::uuid AND ${where}${inTier(raw('u."customerId"'))} ORDER BY ${k1} USING ~<~, ${k2} USING ~<~, u."customerId" LIMIT ${limit})`;
  const first = raw(`lower(u."firstName")`);
  const last = raw(`lower(u."lastName")`);
  /**
   * The name queries of one match kind: "jane doe" as first and last name; "doe" as either name (two queries).
   * Exact and prefix compare `lower(name)` (the btrees' expression) with `=` and LIKE; substring uses ILIKE on the
   * column (what the trigram indexes serve). In a UTF-8 database ILIKE is `lower(name) LIKE lower(pattern)`, so the
   * three give the matches the one ILIKE of each gave before.
   */
  const names = (rank: number, kind: "exact" | "prefix" | "substring") => {
    const [fw = "", ...rest] = words;
    const match = (column: "firstName" | "lastName", word: string) =>
      kind === "exact"
        ? sql`lower(u.${raw(`"${column}"`)}) = lower(${word})`
        : kind === "prefix"
          ? sql`lower(u.${raw(`"${column}"`)}) LIKE lower(${`${likeEscape(word)}%`})`
          : sql`u.${raw(`"${column}"`)} ILIKE ${`%${likeEscape(word)}%`}`;
    if (words.length >= 2)
      return [user(rank, sql`${match("firstName", fw)} AND ${match("lastName", rest.join(" "))}`, last, first)];
    return [user(rank, match("firstName", lower), first, last), user(rank, match("lastName", lower), last, first)];
  };
  const [wave1, wave2, wave3] = waves;

  wave1.push(byEmail(MATCH_RANKS.email_exact, sql`c.email = ${lower}`));
  wave1.push(user(MATCH_RANKS.external_id_exact, sql`u."externalCustomerId" = ${text}`, raw(`u."externalCustomerId"`)));
  if (looksLikePhone)
    wave1.push(user(MATCH_RANKS.phone_exact, sql`u."phoneDigits" = ${digits}`, raw(`u."phoneDigits"`)));
  wave1.push(byEmail(MATCH_RANKS.email_prefix, sql`c.email LIKE ${likePrefix(text)}`));
  if (lower.length >= MIN_TRIGRAM && !looksLikePhone) {
    wave1.push(...names(MATCH_RANKS.name_exact, "exact"));
    wave1.push(...names(MATCH_RANKS.name_prefix, "prefix"));
    // E-mails have no spaces: "olivia smith" is a name, and its trigrams would match every olivia.smith e-mail.
    if (words.length === 1) wave2.push(byEmail(MATCH_RANKS.email_substring, emailContains(lower)));
    wave3.push(...names(MATCH_RANKS.name_substring, "substring"));
  }
  if (looksLikePhone) {
    wave1.push(user(MATCH_RANKS.phone_prefix, sql`u."phoneDigits" LIKE ${`${digits}%`}`, raw(`u."phoneDigits"`)));
    // The number without its country or area code: the end of the digits, a prefix of the reversed digits.
    wave2.push(
      user(
        MATCH_RANKS.phone_suffix,
        sql`u."phoneReversed" LIKE ${`${[...digits].reverse().join("")}%`}`,
        raw(`u."phoneReversed"`),
      ),
    );
  }
  return waves;
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
 * The best `limit` matches of `filter.q` in (rank, k1, k2, id) order (see `rankedWaves`), in one statement: each wave
 * after the first runs only when the waves before it found fewer than a page of live customers (a one-time filter:
 * otherwise its queries are never executed), and the second only when the first found no exact e-mail or external id.
 */
async function rankedSearch(db: Db, programId: string, filter: CustomerFilter): Promise<CustomerRow[]> {
  const limit = Math.min(Math.max(filter.limit ?? 25, 1), SEARCH_LIMIT);
  const [wave1, wave2, wave3] = rankedWaves(programId, filter.q ?? "", limit, filter.tierId ?? null);
  const union = (branches: Sql[]) => join(branches, "\n UNION ALL ");
  /** Live customers (and the best rank) among a wave's hits. */
  const found = (from: Sql) =>
    sql`SELECT count(DISTINCT h.id) AS n, min(h.rank) AS best FROM (${from}) h JOIN "Customer" c ON c.id = h.id WHERE c."deletedAt" IS NULL AND c.email IS NOT NULL`;
  const gated = (branches: Sql[], gate: Sql) =>
    branches.length ? union(branches.map((b) => sql`SELECT * FROM ${b} g WHERE ${gate}`)) : NONE;
  const gate2 = sql`(SELECT f.n < ${limit} AND coalesce(f.best, ${MATCH_RANKS.external_id_exact + 1}) > ${MATCH_RANKS.external_id_exact} FROM f1 f)`;
  const gate3 = sql`(SELECT f.n < ${limit} FROM f2 f)`;
  // Planned for its values each time (`customPlan`): "%example%" (every row) and "%smith.12345%" (one row) need
  // different plans, a scan that stops at LIMIT and the trigram index; generic plans took seconds at 1,000,000.
  // Being planned on every run, the statement must plan fast: a page's row is read by a LATERAL subquery per found
  // customer (its LIMIT 1 keeps it a subquery, planned alone with the customer id as a constant), not by joining the
  // five tables to the found ids, whose join order search took ~10 ms of planning per search at 1,000,000 customers
  // (the lookups themselves ~0.1 ms).
  const rows = await query<CustomerRow & { rank: number }>(
    db,
    customPlan(sql`WITH w1 AS MATERIALIZED (${union(wave1)}),
          f1 AS MATERIALIZED (${found(sql`SELECT id, rank FROM w1`)}),
          w2 AS MATERIALIZED (${gated(wave2, gate2)}),
          f2 AS MATERIALIZED (${found(sql`SELECT id, rank FROM w1 UNION ALL SELECT id, rank FROM w2`)}),
          w3 AS MATERIALIZED (${gated(wave3, sql`${gate2} AND ${gate3}`)}),
          best AS (SELECT DISTINCT ON (id) id, rank, k1, k2 FROM (SELECT * FROM w1 UNION ALL SELECT * FROM w2 UNION ALL SELECT * FROM w3) h
                   ORDER BY id, rank, k1 USING ~<~, k2 USING ~<~)
     SELECT r.*, b.rank FROM best b CROSS JOIN LATERAL (
       ${SELECT_ROW}
       FROM "Customer" c
         JOIN "UserData" u ON u."customerId" = c.id
         JOIN "LoyaltyData" l ON l."customerId" = c.id
         JOIN "CustomerTier" ct ON ct."customerId" = c.id
         LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
       WHERE c.id = b.id AND c."deletedAt" IS NULL AND c.email IS NOT NULL LIMIT 1) r
     ORDER BY b.rank, b.k1 USING ~<~, b.k2 USING ~<~, b.id LIMIT ${limit}`),
  );
  const kind = Object.fromEntries(Object.entries(MATCH_RANKS).map(([k, v]) => [v, k])) as Record<number, MatchKind>;
  return rows.map(({ rank, ...r }) => ({ ...r, balance: Number(r.balance), match: kind[Number(rank)] }));
}

/** A wave with no query (a text too short for it): no rows, of the waves' shape. */
const NONE = sql`SELECT NULL::uuid AS id, 0 AS rank, ''::text AS k1, ''::text AS k2 WHERE false`;

/** The search box: the 8 best matches of `q` (e-mail, name, phone, external id), as `{ data }`. */
export const quickSearch = staffQuery("customers.read", async (db, staff, q: string) => ({
  data: q.trim() ? (await searchCustomers(db, staff.programId, { q: q.slice(0, 200), limit: 8 })).rows : [],
}));
