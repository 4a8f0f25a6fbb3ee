import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { join, query, raw, sql, type Sql } from "@/lib/db/sql";
import { customerAttributeTypes } from "../customer-attributes";
import { checkTree, type FieldProblem, type ResolvedAttr, type ScalarType } from "../campaigns/conditions";
import type { Condition, ConditionLeaf, CustomerAttributes, EventAttributes } from "../campaigns/definition";

/**
 * A segment's filter (API.md "Segments"): the campaign condition tree (all / any / not / leaves) over the customer's
 * fields and event history, checked here by path and compiled to ONE SQL predicate over the program's live
 * customers (`c` Customer, `l` LoyaltyData, `u` UserData, `t` current Tier), values always bound. Preview, members,
 * a customer's segments, `customer.segment` in campaigns and the membership recompute all run this one query, so
 * they agree by construction.
 *
 * Attributes:
 * - `customer.tier` (string: the current tier's name), `customer.balance`, `customer.memberDays` (whole days since
 *   memberSince at the program clock's now), `customer.language`, `customer.utmSource|utmMedium|utmCampaign`,
 *   `customer.birthdate` (datetime: the date at 00:00 UTC), `customer.lastActivityAt` (datetime: the latest of the
 *   customer's events and ledger entries), `customer.<declared attribute>` (its declared type).
 * - `events.<type>.count`, `events.<type>.sum.<number attribute>` (numbers; 0 without events) and
 *   `events.<type>.lastAt` (datetime), over the customer's events of that declared type that occurred at or before
 *   now and, with `window` (an ISO 8601 duration such as P90D or PT12H), after now − window.
 * Semantics are the campaign conditions': a leaf on an absent value is false except `exists: false`, and `not` of
 * such a leaf is true.
 */

export const CUSTOMER_FIELDS: Record<string, ScalarType> = {
  tier: "string",
  balance: "number",
  memberDays: "number",
  language: "string",
  utmSource: "string",
  utmMedium: "string",
  utmCampaign: "string",
  birthdate: "datetime",
  lastActivityAt: "datetime",
};

/** What a filter's leaves may read: the program's declared customer attributes and event types. */
export interface FilterDeclarations {
  customer: CustomerAttributes;
  events: Record<string, EventAttributes>;
  /** The program's tiers, id by name, when the filter names `customer.tier` (compileLeaf: `eq` / `in` by id). */
  tiers?: Record<string, string>;
}

const EVENTS = /^events\.([A-Za-z0-9_.-]{1,64}?)\.(count|lastAt|sum\.([A-Za-z_][A-Za-z0-9_]*))$/;
const CUSTOMER = /^customer\.([A-Za-z_][A-Za-z0-9_]*)$/;
/** An ISO 8601 duration of days, weeks, months, years, hours, minutes, seconds (no fractions). */
const DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/;
const MAX_WINDOW_DAYS = 3660;

function durationDays(d: string): number {
  const m = DURATION.exec(d)!;
  const n = (i: number) => Number((m[i] ?? "0").replace(/\D/g, "") || 0);
  return n(1) * 366 + n(2) * 31 + n(3) * 7 + n(4) + (n(6) * 3600 + n(7) * 60 + n(8)) / 86400;
}

function resolve(attr: string, decl: FilterDeclarations): ResolvedAttr | string {
  const c = CUSTOMER.exec(attr);
  if (c) {
    const name = c[1]!;
    if (Object.hasOwn(CUSTOMER_FIELDS, name))
      return { scope: "customer", name, field: null, type: CUSTOMER_FIELDS[name]! };
    if (Object.hasOwn(decl.customer, name)) return { scope: "customer", name, field: null, type: decl.customer[name]! };
    return `must name a customer field (${Object.keys(CUSTOMER_FIELDS).join(", ")}) or a declared customer attribute`;
  }
  const e = EVENTS.exec(attr);
  if (!e) return "must be customer.<field>, events.<type>.count, events.<type>.sum.<attribute> or events.<type>.lastAt";
  const [, type, what, sumOf] = e as unknown as [string, string, string, string | undefined];
  const declared = Object.hasOwn(decl.events, type) ? decl.events[type] : undefined;
  if (!declared) return `names an event type the program does not declare: ${type}`;
  if (sumOf !== undefined) {
    const a = Object.hasOwn(declared, sumOf) ? declared[sumOf] : undefined;
    if (a?.type !== "number") return `sum must name a number attribute of ${type}: ${sumOf} is not one`;
    return { scope: "event", name: type, field: sumOf, type: "number" };
  }
  return { scope: "event", name: type, field: what, type: what === "count" ? "number" : "datetime" };
}

/** The declarations a filter is checked and compiled against: customer attributes and the event types it names. */
export async function filterDeclarations(db: Db, programId: string, filter: unknown): Promise<FilterDeclarations> {
  const types = eventTypesOf(filter);
  const [customer, events, tiers] = await Promise.all([
    customerAttributeTypes(db, programId),
    types.length
      ? db.eventType.findMany({ where: { programId, type: { in: types } }, select: { type: true, attributes: true } })
      : Promise.resolve([]),
    attrsOf(filter).has("customer.tier")
      ? db.tier.findMany({ where: { programId }, select: { id: true, name: true } })
      : Promise.resolve(null),
  ]);
  return {
    customer,
    events: Object.fromEntries(events.map((e) => [e.type, e.attributes as unknown as EventAttributes])),
    ...(tiers && { tiers: Object.fromEntries(tiers.map((t) => [t.name, t.id])) }),
  };
}

/** Every problem of a filter against the program's declarations, by path under `path`. */
export function checkFilter(filter: unknown, decl: FilterDeclarations, path = "filter"): FieldProblem[] {
  return checkTree(filter, path, {
    resolve: (attr) => resolve(attr, decl),
    extraKeys: {
      window: (value, _at, resolved) => {
        if (value === undefined) return null;
        if (typeof resolved !== "string" && resolved.scope !== "event") return "applies to events.<type>.… only";
        if (typeof value !== "string" || !DURATION.test(value))
          return "must be an ISO 8601 duration such as P90D, P1M or PT12H";
        if (durationDays(value) > MAX_WINDOW_DAYS) return "must be at most 10 years";
        return null;
      },
    },
  });
}

type Leaf = ConditionLeaf & { window?: string };

/** The attributes a filter's leaves name (unchecked: any tree). */
function attrsOf(filter: unknown): Set<string> {
  const attrs = new Set<string>();
  const visit = (n: unknown, depth: number) => {
    if (depth > 10 || typeof n !== "object" || n === null) return;
    const o = n as Record<string, unknown>;
    for (const k of ["all", "any"]) if (Array.isArray(o[k])) (o[k] as unknown[]).forEach((c) => visit(c, depth + 1));
    if (o.not) visit(o.not, depth + 1);
    if (typeof o.attr === "string") attrs.add(o.attr);
  };
  visit(filter, 0);
  return attrs;
}

/** The program's declared event types a checked filter names (for `checkFilter`'s declarations). */
export function eventTypesOf(filter: unknown): string[] {
  const types = new Set<string>();
  for (const attr of attrsOf(filter)) {
    const m = EVENTS.exec(attr);
    if (m) types.add(m[1]!);
  }
  return [...types];
}

/** One grouped read of a program's events of one type (and window), shared by the leaves that name them. */
interface Aggregate {
  alias: string;
  type: string;
  window: string | undefined;
  /** The number attributes summed, column `s<i>`. */
  sums: string[];
}

interface Compiled {
  programId: string;
  now: string;
  /** Whether the predicate reads l (LoyaltyData), u (UserData), t (Tier, through ct) or ct (CustomerTier) alone. */
  loyalty: boolean;
  user: boolean;
  tier: boolean;
  tierRow: boolean;
  /** The event aggregates the leaves read, by `type window`. */
  aggregates: Map<string, Aggregate>;
  /** Instants (per customer) at which a leaf's value can change with time alone: the next flip is the least. */
  flips: Sql[];
  /** Restricts the customers (and the event aggregates) to these ids, when set. */
  customers: string[] | null;
}

/** The text form of a time a leaf compares with (a date is its midnight UTC, as the conditions read it). */
const instant = (v: unknown) => new Date(Date.parse(v as string)).toISOString();

/**
 * The aggregate of `type` in `window` (created on first use). Its columns: `n` the count, `last` the latest, `first`
 * the oldest (in the window, at or before now), `future` the earliest event dated after now, `s<i>` the sums.
 */
function aggregate(c: Compiled, type: string, window: string | undefined): Aggregate {
  const key = `${type} ${window ?? ""}`;
  let a = c.aggregates.get(key);
  if (!a) {
    a = { alias: `ea${c.aggregates.size}`, type, window, sums: [] };
    c.aggregates.set(key, a);
    const ref = (col: string) => raw(`${a!.alias}.${col}`);
    // Time alone changes the aggregate when its oldest event leaves the window, or a future-dated event arrives.
    if (window)
      c.flips.push(sql`CASE WHEN ${ref("first")} + ${window}::interval > ${c.now}::timestamptz
        THEN ${ref("first")} + ${window}::interval END`);
    c.flips.push(ref("future"));
  }
  return a;
}

/** The SQL value a leaf reads (NULL when absent), and its SQL type for bound values. */
function valueExpr(leaf: Leaf, r: ResolvedAttr, c: Compiled): [Sql, string] {
  const { programId, now } = c;
  if (r.scope === "event") {
    const a = aggregate(c, r.name, leaf.window);
    if (r.field === "count") return [raw(`coalesce(${a.alias}.n, 0)`), "numeric"];
    if (r.field === "lastAt") return [raw(`${a.alias}.last`), "timestamptz"];
    let i = a.sums.indexOf(r.field!);
    if (i < 0) i = a.sums.push(r.field!) - 1;
    return [raw(`coalesce(${a.alias}.s${i}, 0)`), "numeric"];
  }
  switch (r.name) {
    case "tier":
      c.tier = true;
      return [raw("t.name"), "text"];
    case "balance":
      c.loyalty = true;
      return [raw("l.balance"), "numeric"];
    case "memberDays":
      c.loyalty = true;
      return [sql`floor(extract(epoch FROM (${now}::timestamptz - l."memberSince")) / 86400)`, "numeric"];
    case "language":
    case "utmSource":
    case "utmMedium":
    case "utmCampaign":
      return [raw(`c."${r.name}"`), "text"];
    case "birthdate":
      c.user = true;
      return [
        raw(`CASE WHEN u.birthdate ~ '^\\d{4}-\\d{2}-\\d{2}$' THEN (u.birthdate || 'T00:00:00Z')::timestamptz END`),
        "timestamptz",
      ];
    case "lastActivityAt":
      return [
        sql`GREATEST(
          (SELECT max(e."occurredAt") FROM "CustomerEvent" e WHERE e."programId" = ${programId}::uuid AND e."customerId" = c.id AND e."occurredAt" <= ${now}::timestamptz),
          (SELECT max(le."createdAt") FROM "LedgerEntry" le WHERE le."customerId" = c.id AND le."createdAt" <= ${now}::timestamptz))`,
        "timestamptz",
      ];
  }
  // A declared customer attribute: a stored value of another JSON type reads as absent (the attribute was retyped).
  const v = sql`c."customAttributes"->${r.name}`;
  const vt = sql`c."customAttributes"->>${r.name}`;
  switch (r.type) {
    case "number":
      return [sql`CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${vt})::numeric END`, "numeric"];
    case "boolean":
      return [sql`CASE WHEN jsonb_typeof(${v}) = 'boolean' THEN (${vt})::boolean END`, "boolean"];
    case "datetime":
      return [
        sql`CASE WHEN jsonb_typeof(${v}) = 'string' AND (${vt}) ~ '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2}))?$' THEN (${vt})::timestamptz END`,
        "timestamptz",
      ];
    default:
      return [sql`CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${vt} END`, "text"];
  }
}

/** Whether an event leaf is true exactly when the customer has an event of its type in its window (at or before now). */
function hasEventTest(leaf: Leaf, r: ResolvedAttr): boolean {
  const v = leaf.value;
  if (r.field === "lastAt") return leaf.op === "exists" && v === true;
  if (r.field !== "count" || typeof v !== "number" || !Number.isFinite(v)) return false;
  // The count is a whole number ≥ 0: each of these holds exactly when it is ≥ 1.
  switch (leaf.op) {
    case "gte":
      return v > 0 && v <= 1;
    case "gt":
      return v >= 0 && v < 1;
    case "ne":
      return v === 0;
    default:
      return false;
  }
}

const JSON_PATH_OPERATORS = { eq: "==", gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;

const OPERATORS = { eq: "=", ne: "<>", gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;

/**
 * A leaf's SQL: `coalesce(<comparison>, false)`, a total boolean (so `not` of an absent value is true), or, when
 * `strict` (a conjunct of a WHERE's top level, where NULL and false both drop the row), the bare comparison: the same
 * rows, but the planner sees a strict qual, so it can turn the tier's outer joins into inner ones and serve the leaf
 * by an index.
 */
function compileLeaf(leaf: Leaf, decl: FilterDeclarations, c: Compiled, strict = false): Sql {
  const total = (cmp: Sql) => (strict ? cmp : sql`coalesce(${cmp}, false)`);
  const r = resolve(leaf.attr, decl);
  if (typeof r === "string") throw new Error(`an unchecked filter: ${leaf.attr} ${r}`);
  // `customer.tier` eq / in: the current tier's id among the named tiers' ids (names are unique in a program; a name
  // no tier has matches no one), so the planner reads CustomerTier alone and estimates the tier's share from its
  // statistics, instead of joining Tier and guessing. NULL (no tier) where `t.name` is NULL; the empty list is false
  // rather than NULL, which no form tells apart (coalesced, or a WHERE's conjunct).
  if (r.scope === "customer" && r.name === "tier" && (leaf.op === "eq" || leaf.op === "in") && decl.tiers) {
    const tiers = decl.tiers;
    const names = (leaf.op === "eq" ? [leaf.value] : (leaf.value as unknown[])).filter(
      (v): v is string => typeof v === "string" && Object.hasOwn(tiers, v),
    );
    c.tierRow = true;
    return total(sql`ct."currentTierId" = ANY(${names.map((n) => tiers[n]!)}::uuid[])`);
  }
  // A declared number attribute compared with a number: one JSON path match (strict: no unwrapping of arrays, a
  // missing or mistyped value is NULL, JSON null compares false), half the cost per customer of extracting and
  // type-checking the value twice; true for exactly the customers the typed comparison below is true for (`ne` is
  // not: null != v is true in a path).
  if (
    r.scope === "customer" &&
    !Object.hasOwn(CUSTOMER_FIELDS, r.name) &&
    r.type === "number" &&
    Object.hasOwn(JSON_PATH_OPERATORS, leaf.op) &&
    typeof leaf.value === "number" &&
    Number.isFinite(leaf.value)
  ) {
    const path = `strict $.${JSON.stringify(r.name)} ${JSON_PATH_OPERATORS[leaf.op as keyof typeof JSON_PATH_OPERATORS]} $v`;
    return total(
      sql`jsonb_path_match(c."customAttributes", ${path}::jsonpath, ${JSON.stringify({ v: leaf.value })}::jsonb, true)`,
    );
  }
  // A WHERE's conjunct that only asks whether the customer has an event of the type in the window (count ≥ 1,
  // count > 0, count ≠ 0, lastAt exists): a semi-join on the window's events, which the planner can hash once and
  // share between parallel workers, instead of a per-customer aggregate each worker builds in full.
  if (strict && r.scope === "event" && hasEventTest(leaf, r)) {
    const window = leaf.window ? sql` AND e."occurredAt" > ${c.now}::timestamptz - ${leaf.window}::interval` : raw("");
    const mine = c.customers ? sql` AND e."customerId" = ANY(${c.customers}::uuid[])` : raw("");
    return sql`c.id IN (SELECT e."customerId" FROM "CustomerEvent" e
        WHERE e."programId" = ${c.programId}::uuid AND e.type = ${r.name} AND e."occurredAt" <= ${c.now}::timestamptz${window}${mine})`;
  }
  const [expr, type] = valueExpr(leaf, r, c);
  if (r.scope === "customer" && r.name === "memberDays" && leaf.op !== "exists") memberDaysFlip(leaf, c);
  const bind = (v: unknown) => sql`${type === "timestamptz" ? instant(v) : v}::${raw(type)}`;
  switch (leaf.op) {
    case "exists":
      return sql`((${expr}) IS NOT NULL) = ${leaf.value === true}::boolean`;
    case "contains":
      return total(sql`strpos(${expr}, ${leaf.value as string}) > 0`);
    case "in":
    case "nin": {
      const list = sql`(SELECT (x.v)::${raw(type)} FROM jsonb_array_elements_text(${JSON.stringify(
        (leaf.value as unknown[]).map((v) => (type === "timestamptz" ? instant(v) : v)),
      )}::jsonb) AS x(v))`;
      return leaf.op === "in" ? total(sql`(${expr}) IN ${list}`) : total(sql`(${expr}) NOT IN ${list}`);
    }
    default:
      return total(sql`(${expr}) ${raw(OPERATORS[leaf.op as keyof typeof OPERATORS])} ${bind(leaf.value)}`);
  }
}

/**
 * A `customer.memberDays` leaf changes its answer only when the whole days since memberSince reach a value of the
 * leaf: ≥ v and < v at ⌈v⌉, > v and ≤ v at ⌊v⌋ + 1, = v / ≠ v / in / nin at each whole v and v + 1. The next such
 * instant (after now) is a flip.
 */
function memberDaysFlip(leaf: Leaf, c: Compiled) {
  const values = (Array.isArray(leaf.value) ? leaf.value : [leaf.value]).filter(
    (v): v is number => typeof v === "number" && Number.isFinite(v),
  );
  const days = [
    ...new Set(
      values.flatMap((v) => {
        switch (leaf.op) {
          case "gte":
          case "lt":
            return [Math.ceil(v)];
          case "gt":
          case "lte":
            return [Math.floor(v) + 1];
          default:
            return Number.isInteger(v) ? [v, v + 1] : [];
        }
      }),
    ),
  ].filter((d) => d > 0);
  if (!days.length) return;
  // The first of the ascending instants still ahead (a CASE, not a subquery per customer).
  const at = (d: number) => sql`l."memberSince" + ${d}::int * interval '1 day'`;
  const whens = days.sort((a, b) => a - b).map((d) => sql` WHEN ${at(d)} > ${c.now}::timestamptz THEN ${at(d)}`);
  c.flips.push(sql`(CASE${join(whens, "")} END)`);
}

/** `strict`: the node is the WHERE's top level or one of its conjuncts (see compileLeaf). */
function compileNode(node: Condition, decl: FilterDeclarations, c: Compiled, strict = false): Sql {
  const compile = (n: Condition) => compileNode(n, decl, c);
  if ("all" in node)
    return sql`(${join(
      node.all.map((n) => compileNode(n, decl, c, strict)),
      " AND ",
    )})`;
  if ("any" in node) return sql`(${join(node.any.map(compile), " OR ")})`;
  if ("not" in node) return sql`(NOT ${compile(node.not)})`;
  return compileLeaf(node as Leaf, decl, c, strict);
}

/** The key of the event aggregate a leaf reads (`aggregate`), or null for a customer leaf. */
function aggregateKey(leaf: Leaf, decl: FilterDeclarations): string | null {
  const r = resolve(leaf.attr, decl);
  return typeof r !== "string" && r.scope === "event" ? `${r.name} ${leaf.window ?? ""}` : null;
}

/**
 * Whether the filter is false for every customer without a row in the aggregate `key` (no event of its type in its
 * window, future-dated ones included): then the aggregate is joined, not left-joined, and only the customers with
 * such events are looked at. Time alone cannot change that answer (an event never enters a window by time), so a
 * customer left out has no flip either. Decided on the leaves' values without a row (count and sums 0, lastAt
 * null), as compileLeaf compares them; conservative (false) where unsure.
 */
function falseWithout(node: Condition, key: string, decl: FilterDeclarations): boolean {
  if ("all" in node) return node.all.some((n) => falseWithout(n, key, decl));
  if ("any" in node) return node.any.every((n) => falseWithout(n, key, decl));
  if ("not" in node) return false;
  const leaf = node as Leaf;
  if (aggregateKey(leaf, decl) !== key) return false;
  const r = resolve(leaf.attr, decl) as ResolvedAttr;
  if (r.field === "lastAt") return !(leaf.op === "exists" && leaf.value === false);
  const v = leaf.value;
  const num = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
  switch (leaf.op) {
    case "exists":
      return v === false;
    case "eq":
      return num(v) && v !== 0;
    case "ne":
      return num(v) && v === 0;
    case "gt":
      return num(v) && !(0 > v);
    case "gte":
      return num(v) && !(0 >= v);
    case "lt":
      return num(v) && !(0 < v);
    case "lte":
      return num(v) && !(0 <= v);
    case "in":
      return Array.isArray(v) && v.every(num) && !v.includes(0);
    case "nin":
      return Array.isArray(v) && v.every(num) && v.includes(0);
    default:
      return false;
  }
}

interface FilterOptions {
  select?: Sql;
  and?: Sql;
  tail?: Sql;
  /** Only these customers (a customer's segments, a pass over the customers due): also narrows the event reads. */
  customers?: string[];
  /** The filter is a WHERE (not a column): its top-level conjuncts compile strict (compileLeaf). */
  strict?: boolean;
}

function compileFilter(
  filter: Condition,
  decl: FilterDeclarations,
  programId: string,
  now: Date,
  options: FilterOptions,
) {
  const c: Compiled = {
    programId,
    now: now.toISOString(),
    loyalty: false,
    user: false,
    tier: false,
    tierRow: false,
    aggregates: new Map(),
    flips: [],
    customers: options.customers ?? null,
  };
  const where = compileNode(filter, decl, c, options.strict ?? false);
  const user = c.user ? raw(`LEFT JOIN "UserData" u ON u."customerId" = c.id`) : raw("");
  const tier = c.tier
    ? raw(`LEFT JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id
     LEFT JOIN "Tier" t ON t.id = ct."currentTierId"`)
    : c.tierRow
      ? raw(`LEFT JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id`)
      : raw("");
  const only = c.customers ? sql` AND c.id = ANY(${c.customers}::uuid[])` : raw("");
  // Each event aggregate is ONE grouped read of the program's events of its type (in its window), joined by
  // customer: the planner reads the type's window once, an index-only scan of `(programId, type, occurredAt,
  // customerId)` unless a sum needs the attributes, instead of probing the log once per customer per leaf. It is
  // joined (not left-joined) when the filter cannot match without such events (`falseWithout`).
  const events = join(
    [...c.aggregates.values()].map((a) => {
      const sums = a.sums.map(
        (attr, i) =>
          sql`, sum(CASE WHEN e."occurredAt" <= ${c.now}::timestamptz AND jsonb_typeof(e.attributes->${attr}) = 'number'
            THEN (e.attributes->>${attr})::numeric END) AS ${raw(`s${i}`)}`,
      );
      const window = a.window ? sql` AND e."occurredAt" > ${c.now}::timestamptz - ${a.window}::interval` : raw("");
      const mine = c.customers ? sql` AND e."customerId" = ANY(${c.customers}::uuid[])` : raw("");
      const kind = falseWithout(filter, `${a.type} ${a.window ?? ""}`, decl) ? raw("JOIN") : raw("LEFT JOIN");
      return sql`${kind} (SELECT e."customerId",
          count(*) FILTER (WHERE e."occurredAt" <= ${c.now}::timestamptz) AS n,
          max(e."occurredAt") FILTER (WHERE e."occurredAt" <= ${c.now}::timestamptz) AS last,
          min(e."occurredAt") FILTER (WHERE e."occurredAt" <= ${c.now}::timestamptz) AS first,
          min(e."occurredAt") FILTER (WHERE e."occurredAt" > ${c.now}::timestamptz) AS future${join(sums, "")}
        FROM "CustomerEvent" e
        WHERE e."programId" = ${programId}::uuid AND e.type = ${a.type}${window}${mine}
        GROUP BY e."customerId") ${raw(a.alias)} ON ${raw(a.alias)}."customerId" = c.id`;
    }),
    " ",
  );
  // Every customer has a LoyaltyData row (written with the customer, customers.ts): joined only when a leaf reads it.
  const loyalty = c.loyalty
    ? raw(`JOIN "LoyaltyData" l ON l."programId" = c."programId" AND l."customerId" = c.id`)
    : raw("");
  const from = sql`FROM "Customer" c ${loyalty}
     ${user} ${tier} ${events}
     WHERE c."programId" = ${programId}::uuid AND c."deletedAt" IS NULL${only}`;
  const next = c.flips.length ? sql`LEAST(${join(c.flips, ", ")})` : raw("NULL::timestamptz");
  return { where, from, next };
}

/**
 * Runs `read` with the settings of a filter's scan over up to all of a program's customers, in its own transaction
 * when `db` is not one (else for the rest of the caller's): a plan made for the actual values (statements are
 * prepared per connection, and after five runs PostgreSQL may switch to a generic plan that cannot know which tier
 * or window is named), no JIT (its compilation cost ~0.7 s of a 1,000,000-customer preview, more than it saves), and
 * enough work_mem for the event aggregate and the membership diff to hash in memory rather than spill to disk.
 */
export async function withScanSettings<T>(db: Db, read: (tx: Tx) => Promise<T>): Promise<T> {
  const run = async (tx: Tx) => {
    await query(
      tx,
      sql`SELECT set_config('plan_cache_mode', 'force_custom_plan', true), set_config('jit', 'off', true),
        set_config('work_mem', ${SCAN_WORK_MEM}, true)`,
    );
    return read(tx);
  };
  // A transaction's client also has `$transaction` (a nested one: a savepoint, which PGlite's adapter refuses);
  // only the client itself has `$connect`.
  return "$connect" in db
    ? (db as PrismaClient).$transaction(run, { timeout: 600_000, maxWait: 60_000 })
    : run(db as Tx);
}

const SCAN_WORK_MEM = "64MB";

/**
 * THE query of a checked filter: `SELECT c.id, c.email FROM <the program's live customers> WHERE <filter>`, with
 * `and` (a further condition on c, e.g. a keyset), `customers` (only these) and `tail` (ORDER BY / LIMIT) added.
 * Every use of a segment runs this.
 */
export function filterQuery(
  filter: Condition,
  decl: FilterDeclarations,
  programId: string,
  now: Date,
  options: FilterOptions = {},
): Sql {
  const { where, from } = compileFilter(filter, decl, programId, now, { ...options, strict: true });
  return sql`SELECT ${options.select ?? raw("c.id, c.email")} ${from}
     AND ${where}${options.and ? sql` AND ${options.and}` : raw("")}
     ${options.tail ?? raw("")}`;
}

/**
 * The same filter evaluated for every customer in scope (the program's live customers, or `customers`):
 * `id`, `member` (the filter's answer now) and `next`, the next instant at which the answer can change with time
 * alone (null: only a change of the customer's data can change it). The membership passes run this. A customer
 * the filter cannot match without events they do not have (`falseWithout`) has no row: not a member, no flip.
 */
export function filterEvaluation(
  filter: Condition,
  decl: FilterDeclarations,
  programId: string,
  now: Date,
  options: Pick<FilterOptions, "customers"> = {},
): Sql {
  const { where, from, next } = compileFilter(filter, decl, programId, now, options);
  return sql`SELECT c.id, ${where} AS member, ${next} AS next ${from}`;
}
