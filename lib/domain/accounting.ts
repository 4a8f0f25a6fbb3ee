import "server-only";
import { execute, join, query, raw, sql, type Sql } from "@/lib/db/sql";
import type { Db, RawQueries } from "@/lib/db/types";
import { moneyOf, parsePointValue } from "./point-value";
import { sweepNow } from "./clock";

/**
 * Points accounting (issue 27; docs/dashboard.md "Finance", API.md "Points accounting"): the program's points as
 * books — per day of its time zone, what was outstanding at the start, every flow, and what was outstanding at the
 * end, in points and in money — and the daily aggregates (`PointsDay`) the reports read instead of the ledger.
 *
 * Definitions, stated once here:
 *  - outstanding (the liability) at the end of a day: the spendable balances of the customers not erased by then,
 *    i.e. the sum of their balance-changing ledger entries up to then;
 *  - every ledger entry counts in exactly one column (KIND_RULES, the first rule that matches); a column's value is
 *    `sign × points` of its entries, and a balance column's sign is also its effect on the outstanding, so
 *    closing = opening + earned − reversed − redeemed + redemptionsCancelled − expired + adjusted, every day;
 *  - erasure: the right to erasure removes the person, not the program's books. A customer's entries stay
 *    (lib/domain/deletion.ts), the balance they held is written off on the day of the erasure (`erased`, part of
 *    `adjusted`: a derecognised liability), and the entries written after it (the expiry job still expires their
 *    lots) are not the program's books any more. The rolled-up days hold sums only, keyed by program and day, with
 *    no reference to a customer, so no erasure (nor a deletion of customer rows, which cascades to their ledger)
 *    changes a day once it is rolled up;
 *  - money: points × the program's current value per point (Program.pointValue, exact, lib/domain/point-value.ts):
 *    the liability is measured at today's value, so a change of the value restates every day alike;
 *  - breakage on a day: points expired ÷ points earned over the 365 days ending that day (null when none earned).
 *
 * Aggregates: a rollup job (`rollUpDuePrograms`, lib/jobs/scheduler.ts) writes one `PointsDay` row per active day
 * once the day is over in the program's zone (on the program clock: a test program's days close as its clock
 * advances), GRACE after midnight so a write that read the clock before midnight has committed. A report reads the
 * rolled-up days and computes the days since (today, usually) from the ledger with the very same statement
 * (`daysSql`), so it is exact whether or not the job has run; the job only makes it fast. The job also rolls up the
 * day so far (`rollUpToday`, every TODAY_EVERY_MINUTES of the clock), and a report then computes from the ledger only
 * what was written since it. Rolling up is a replace, never an increment, so running it twice or on two instances at
 * once writes the same rows. The choice against maintaining the sums with every write: the hot writes are one
 * statement each, and a per-program-and-day row updated by each of them would serialise every write of a program on
 * one row lock (bench/README.md "Points accounting").
 */

/** The columns of a day a ledger entry may count in. */
export const FLOW_COLUMNS = [
  "earned",
  "pendingCreated",
  "pendingMatured",
  "pendingCancelled",
  "reversed",
  "redeemed",
  "redemptionsCancelled",
  "expired",
  "adjustedUp",
  "adjustedDown",
] as const;
export type FlowColumn = (typeof FLOW_COLUMNS)[number];

/**
 * Each column's sign: its value is sign × the points of its entries, and, for a column that changes balances, the
 * sign of its effect on the outstanding. The pending columns change no spendable balance (0).
 */
export const COLUMN_SIGN: Record<FlowColumn, 1 | -1> = {
  earned: 1,
  pendingCreated: 1,
  pendingMatured: 1,
  pendingCancelled: -1,
  reversed: -1,
  redeemed: -1,
  redemptionsCancelled: 1,
  expired: -1,
  adjustedUp: 1,
  adjustedDown: -1,
};
export const CHANGES_BALANCE: Record<FlowColumn, boolean> = {
  earned: true,
  pendingCreated: false,
  pendingMatured: false,
  pendingCancelled: false,
  reversed: true,
  redeemed: true,
  redemptionsCancelled: true,
  expired: true,
  adjustedUp: true,
  adjustedDown: true,
};

/**
 * Which column a ledger entry counts in: the first rule that matches (`e`: the entry; `o`: the entry a reversal
 * reverses, null otherwise). Adding a ledger type is one line here; test/unit/accounting-kinds.test.ts fails for a
 * type of lib/domain/vocabulary.ts no rule names. The pending columns come from `PendingPoints` instead (pending
 * points are not ledger entries, lib/domain/pending.ts): see `PENDING_COLUMNS`. A matured pending earn is an ordinary
 * `earn` entry, so it counts in `earned` on its day and in `pendingMatured` as well, as information only.
 */
export const KIND_RULES: readonly { column: FlowColumn; when: string }[] = [
  { column: "earned", when: "e.type = 'earn'" },
  { column: "redeemed", when: "e.type IN ('redeem', 'spend')" },
  { column: "expired", when: "e.type = 'expire'" },
  { column: "adjustedUp", when: "e.type = 'adjust' AND e.points > 0" },
  { column: "adjustedDown", when: "e.type = 'adjust'" },
  { column: "reversed", when: "e.type = 'reversal' AND o.type = 'earn'" },
  { column: "redemptionsCancelled", when: "e.type = 'reversal' AND o.type IN ('redeem', 'spend')" },
  { column: "adjustedUp", when: "e.type = 'reversal' AND o.type = 'adjust' AND e.points > 0" },
  { column: "adjustedDown", when: "e.type = 'reversal' AND o.type = 'adjust'" },
  // A reversal whose original is unknown: by its sign.
  { column: "reversed", when: "e.type = 'reversal' AND e.points <= 0" },
  { column: "redemptionsCancelled", when: "e.type = 'reversal'" },
];

/** The column of an entry, as SQL (an entry no rule names counts as an adjustment, so the books still balance). */
const KIND_CASE = raw(
  `CASE ${KIND_RULES.map((r) => `WHEN ${r.when} THEN '${r.column}'`).join(" ")} WHEN e.points > 0 THEN 'adjustedUp' ELSE 'adjustedDown' END`,
);

/**
 * The pending columns of a day, from `PendingPoints` (`p`): created on its `createdAt` day (a partial refund's split
 * rows keep the original's `createdAt`, so they add up to the earn), matured and cancelled on their `settledAt` day.
 * Magnitudes, like the other columns.
 */
const PENDING_COLUMNS: Record<"pendingCreated" | "pendingMatured" | "pendingCancelled", { at: string; when: string }> =
  {
    pendingCreated: { at: `p."createdAt"`, when: "true" },
    pendingMatured: { at: `p."settledAt"`, when: `p.status = 'matured'` },
    pendingCancelled: { at: `p."settledAt"`, when: `p.status = 'cancelled'` },
  };
const isPendingColumn = (c: FlowColumn): c is keyof typeof PENDING_COLUMNS => c in PENDING_COLUMNS;

/** An entry's effect on the outstanding (0 for the pending kinds), as SQL over the kind `k`. */
const BALANCE_EFFECT = raw(
  `CASE WHEN k IN (${FLOW_COLUMNS.filter((c) => !CHANGES_BALANCE[c])
    .map((c) => `'${c}'`)
    .join(", ")}) THEN 0 ELSE points END`,
);

/**
 * Active members (the Overview's "active members in the period"): the customers with at least one ledger entry other
 * than an expiry in the period (an expiry is the absence of activity, written by the system), erased customers
 * included for the days before their erasure. A distinct count over a period cannot be summed from days, so each day
 * keeps, besides how many customers were active on it (`activeMembers`), how many of those had been active within
 * the k days before (`activeRecent[k-1]`, k = 1..ACTIVE_LOOKBACK_DAYS, cumulative; the array stops where it stops
 * growing). A customer is active in the period starting on day s iff they have a day in it whose previous activity is
 * before s — exactly one, their first in the period — so the period's count is the sum over its days d of
 * activeMembers(d) − activeRecent(d)[d − s] (`activeNewSql`): exact, from one row per day. Days hold counts only, no
 * customer reference, so erasure changes no rolled-up day here either.
 */
export const ACTIVE_LOOKBACK_DAYS = 730;

/** A rolled-up day, or a day computed from the ledger by the same statement. */
export interface DayRow {
  day: string;
  earned: number;
  pendingCreated: number;
  pendingMatured: number;
  pendingCancelled: number;
  reversed: number;
  redeemed: number;
  redemptionsCancelled: number;
  expired: number;
  adjustedUp: number;
  adjustedDown: number;
  /** Balances written off by the day's erasures. */
  erased: number;
  redemptions: number;
  newMembers: number;
  erasedMembers: number;
  /** Customers active on the day (see ACTIVE_LOOKBACK_DAYS). */
  activeMembers: number;
  /** Of them, those active within the k days before, k = 1.. (from ledgerDays and a report's days since the rollup). */
  activeRecent?: number[];
  /** Of them, those not active since the start of the day's period (only when readDays is given the periods). */
  activeNew?: number;
}

const DAY_COLUMNS = [...FLOW_COLUMNS, "erased", "redemptions", "newMembers", "erasedMembers"] as const;
/** What a PointsDay row holds: the day's sums, and its active members (not summable across days). */
const STORED_COLUMNS = [...DAY_COLUMNS, "activeMembers", "activeRecent"] as const;
const q = (c: string) => `"${c}"`;

/**
 * The days `from`..`to` (both included, YYYY-MM-DD in `timeZone`) of the program, from the ledger and the customers:
 * one row per day with anything in it. The one statement behind both the rollup and a report's recent days.
 * `active` false leaves the active members out (0 and '{}'): the points accounting does not show them, and they are
 * the statement's dearest part (an index probe per customer active in the days, for their previous activity).
 * Erased customers are few: their entries are matched against the program's erased customers only (the partial
 * index of erased customers), not joined to every customer.
 */
export function daysSql(
  programId: string,
  timeZone: string,
  from: string,
  to: string,
  active = true,
  /**
   * Cut the first day at `since` (business time, inside it) and/or the last at `until`: what the day so far holds
   * (`rollUpToday`), and what was written since it (a report's tail). With `since`, a customer whose previous
   * activity is on the same day (before `since`) is not counted active again: the day so far counted them.
   */
  cut: { since?: Date; until?: Date } = {},
): Sql {
  // The bounds as expressions of the values (not a CTE), so the planner estimates the index ranges from them.
  const tz = sql`${timeZone}::text`;
  const t0 = cut.since
    ? sql`(${cut.since.toISOString()}::timestamptz)`
    : sql`((${from}::date)::timestamp AT TIME ZONE ${tz})`;
  const t1 = cut.until
    ? sql`(${cut.until.toISOString()}::timestamptz)`
    : sql`((${to}::date + 1)::timestamp AT TIME ZONE ${tz})`;
  // A reversal's original by its primary key, probed only for reversals (LATERAL: never a scan of the ledger).
  const original = raw(
    `LEFT JOIN LATERAL (SELECT o.type FROM "LedgerEntry" o WHERE o.id = e."reversesId" AND e."reversesId" IS NOT NULL) o ON true`,
  );
  return sql`WITH erased AS (
  SELECT c.id, c."deletedAt" FROM "Customer" c WHERE c."programId" = ${programId}::uuid AND c."deletedAt" IS NOT NULL),
k AS (
  SELECT (e."createdAt" AT TIME ZONE ${tz})::date AS day, ${KIND_CASE} AS k, e.type, e.points::bigint AS points,
    e."customerId" AS cid
  FROM "LedgerEntry" e
    LEFT JOIN erased c ON c.id = e."customerId"
    ${original}
  WHERE e."programId" = ${programId}::uuid AND e."createdAt" >= ${t0} AND e."createdAt" < ${t1}
    AND (c."deletedAt" IS NULL OR e."createdAt" <= c."deletedAt")),
flows AS (
  SELECT day, ${join(
    FLOW_COLUMNS.map((c) => raw(`coalesce(sum(points * ${COLUMN_SIGN[c]}) FILTER (WHERE k = '${c}'), 0) AS ${q(c)}`)),
  )}, count(*) FILTER (WHERE type = 'redeem') AS redemptions
  FROM k GROUP BY day),
gone AS (
  SELECT (c."deletedAt" AT TIME ZONE ${tz})::date AS day, count(*) AS members,
         coalesce(sum((SELECT coalesce(sum(${BALANCE_EFFECT}), 0) FROM (
           SELECT ${KIND_CASE} AS k, e.points::bigint AS points
           FROM "LedgerEntry" e ${original}
           WHERE e."customerId" = c.id AND e."createdAt" <= c."deletedAt") x)), 0) AS erased
  FROM "Customer" c
  WHERE c."programId" = ${programId}::uuid AND c."deletedAt" >= ${t0} AND c."deletedAt" < ${t1}
  GROUP BY 1),
pend AS (
  SELECT day, ${join(
    Object.keys(PENDING_COLUMNS).map((c) => raw(`coalesce(sum(points) FILTER (WHERE col = '${c}'), 0) AS ${q(c)}`)),
  )}
  FROM (${join(
    Object.entries(PENDING_COLUMNS).map(
      ([c, { at, when }]) => sql`
    SELECT (${raw(at)} AT TIME ZONE ${tz})::date AS day, ${c}::text AS col, p.points::bigint AS points
    FROM "PendingPoints" p LEFT JOIN erased c ON c.id = p."customerId"
    WHERE p."programId" = ${programId}::uuid AND ${raw(at)} >= ${t0} AND ${raw(at)} < ${t1} AND ${raw(when)}
      AND (c."deletedAt" IS NULL OR ${raw(at)} <= c."deletedAt")`,
    ),
    " UNION ALL ",
  )}) x
  GROUP BY day),
act AS (SELECT DISTINCT day, cid FROM k WHERE type <> 'expire' AND ${raw(active ? "true" : "false")}),
lagged AS (SELECT day, cid, lag(day) OVER (PARTITION BY cid ORDER BY day) AS prev FROM act),
gaps AS (
  SELECT day, gap FROM (
    SELECT day, day - coalesce(prev, (
      SELECT (max(e."createdAt") AT TIME ZONE ${tz})::date FROM "LedgerEntry" e
      WHERE e."customerId" = l.cid AND e."createdAt" < ${t0} AND e.type <> 'expire')) AS gap
    FROM lagged l) g
  WHERE gap IS DISTINCT FROM 0),
active AS (
  SELECT day, count(*) AS members, max(gap) FILTER (WHERE gap <= ${ACTIVE_LOOKBACK_DAYS}::int) AS longest
  FROM gaps GROUP BY day),
hist AS (SELECT day, gap, count(*) AS n FROM gaps WHERE gap <= ${ACTIVE_LOOKBACK_DAYS}::int GROUP BY day, gap),
recent AS (
  SELECT day, array_agg(n::int ORDER BY g) AS recent FROM (
    SELECT a.day, g, sum(coalesce(h.n, 0)) OVER (PARTITION BY a.day ORDER BY g) AS n
    FROM active a CROSS JOIN LATERAL generate_series(1, a.longest) g LEFT JOIN hist h ON h.day = a.day AND h.gap = g) x
  GROUP BY day),
joined AS (
  SELECT (c."createdAt" AT TIME ZONE ${tz})::date AS day, count(*) AS n
  FROM "Customer" c
  WHERE c."programId" = ${programId}::uuid AND c."createdAt" >= ${t0} AND c."createdAt" < ${t1}
  GROUP BY 1),
days AS (SELECT day FROM flows UNION SELECT day FROM gone UNION SELECT day FROM joined UNION SELECT day FROM pend)
SELECT to_char(d.day, 'YYYY-MM-DD') AS day, ${join(FLOW_COLUMNS.map((c) => raw(`coalesce(${isPendingColumn(c) ? "p" : "f"}.${q(c)}, 0)::float8 AS ${q(c)}`)))},
       coalesce(g.erased, 0)::float8 AS erased, coalesce(f.redemptions, 0)::int AS redemptions,
       coalesce(j.n, 0)::int AS "newMembers", coalesce(g.members, 0)::int AS "erasedMembers",
       coalesce(a.members, 0)::int AS "activeMembers", coalesce(r.recent, '{}'::int[]) AS "activeRecent"
FROM days d LEFT JOIN flows f ON f.day = d.day LEFT JOIN gone g ON g.day = d.day LEFT JOIN joined j ON j.day = d.day
  LEFT JOIN pend p ON p.day = d.day LEFT JOIN active a ON a.day = d.day LEFT JOIN recent r ON r.day = d.day
ORDER BY d.day`;
}

/** An int[] as the driver gives it (an array, or its text form). */
const ints = (v: unknown): number[] =>
  Array.isArray(v)
    ? v.map(Number)
    : String(v ?? "{}")
        .replace(/[{}]/g, "")
        .split(",")
        .filter((x) => x !== "")
        .map(Number);

const numbers = (r: DayRow): DayRow => {
  const out = { day: r.day } as DayRow;
  for (const c of DAY_COLUMNS) out[c] = Number(r[c]);
  out.activeMembers = Number(r.activeMembers ?? 0);
  if (r.activeNew !== undefined) out.activeNew = Number(r.activeNew);
  if (r.activeRecent !== undefined) out.activeRecent = ints(r.activeRecent);
  return out;
};

/**
 * How many of a day's active members were not active since its period's start — the latest of `starts` not after
 * the day (none: 0) —, as SQL over a row `x` with `day` (a date), "activeMembers" and "activeRecent".
 */
function activeNewSql(starts: readonly string[] | undefined): Sql {
  if (!starts?.length) return sql`0`;
  return sql`(SELECT CASE WHEN ps.s IS NULL THEN 0 WHEN x.day = ps.s THEN x."activeMembers"
    ELSE x."activeMembers" - coalesce(x."activeRecent"[least(x.day - ps.s, cardinality(x."activeRecent"))], 0) END
  FROM (SELECT max(s) AS s FROM unnest(string_to_array(${starts.join(",")}::text, ',')::date[]) s WHERE s <= x.day) ps)`;
}

/** The ledger's days of the program, computed afresh (tests compare the rolled-up days with it). */
export const ledgerDays = async (db: RawQueries, programId: string, timeZone: string, from: string, to: string) =>
  (await query<DayRow>(db, daysSql(programId, timeZone, from, to))).map((r) => ({
    ...numbers(r),
    activeRecent: ints(r.activeRecent),
  }));

// ---- the rollup ----------------------------------------------------------------------------------------------

/** How long after a day's end (business time) it is rolled up: every write that read the clock in it has committed. */
export const ROLLUP_GRACE_MINUTES = 15;
/** Days rolled up per statement (a first rollup of a long history goes in steps). */
const CHUNK_DAYS = 31;

const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const minDay = (a: string, b: string) => (a < b ? a : b);

/**
 * The day so far (`PointsToday`) is rolled up again once the program clock has moved this far past its `asOf`: a report
 * computes from the ledger at most this long plus ROLLUP_GRACE_MINUTES plus the job's interval of the day.
 */
export const TODAY_EVERY_MINUTES = 5;

interface RollupState {
  timeZone: string;
  rolledZone: string | null;
  through: string | null;
  lastClosed: string;
  firstDay: string | null;
  todayZone: string | null;
  todayDay: string | null;
  todayAsOf: Date | string | null;
}

const stateSql = (programId: string, now: Date) => sql`
SELECT p."timeZone", r."timeZone" AS "rolledZone", to_char(r."throughDay", 'YYYY-MM-DD') AS through,
  t."timeZone" AS "todayZone", to_char(t.day, 'YYYY-MM-DD') AS "todayDay", t."asOf" AS "todayAsOf",
  to_char(((${now.toISOString()}::timestamptz - make_interval(mins => ${ROLLUP_GRACE_MINUTES}::int)) AT TIME ZONE p."timeZone")::date - 1, 'YYYY-MM-DD') AS "lastClosed",
  to_char((LEAST(
    (SELECT min(e."createdAt") FROM "LedgerEntry" e WHERE e."programId" = p.id),
    (SELECT min(c."createdAt") FROM "Customer" c WHERE c."programId" = p.id)) AT TIME ZONE p."timeZone")::date, 'YYYY-MM-DD') AS "firstDay"
FROM "Program" p LEFT JOIN "PointsRollup" r ON r."programId" = p.id LEFT JOIN "PointsToday" t ON t."programId" = p.id
WHERE p.id = ${programId}::uuid`;

/**
 * Rolls up the program's days that are over at `now` (its business time) and not rolled up yet, then the day so far
 * (`rollUpToday`); returns the last day rolled up (null: nothing to roll up yet), how many day rows were written, and
 * the time the day so far runs through when it was rolled up now (else null).
 */
export async function rollUpPoints(
  db: Db,
  programId: string,
  now: Date,
): Promise<{ through: string | null; days: number; today: Date | null }> {
  const [state] = await query<RollupState>(db, stateSql(programId, now));
  if (!state) return { through: null, days: 0, today: null };
  const closed = await rollUpClosedDays(db, programId, now, state);
  const today = closed.through === state.lastClosed ? await rollUpToday(db, programId, now, state) : null;
  return { ...closed, today };
}

async function rollUpClosedDays(db: Db, programId: string, now: Date, state: RollupState) {
  let through = state.through;
  if (state.rolledZone !== null && state.rolledZone !== state.timeZone) {
    // The program's zone changed: its days are other days; start again.
    await db.$executeRawUnsafe(`DELETE FROM "PointsDay" WHERE "programId" = $1::uuid`, programId);
    through = null;
  }
  let start = through ? addDays(through, 1) : state.firstDay;
  let written = 0;
  if (start === null) return { through, days: 0 };
  while (start <= state.lastClosed) {
    const end = minDay(addDays(start, CHUNK_DAYS - 1), state.lastClosed);
    const [row] = await query<{ days: number }>(
      db,
      sql`WITH d AS (${daysSql(programId, state.timeZone, start, end)}),
ins AS (
  INSERT INTO "PointsDay" ("programId", day, ${raw(STORED_COLUMNS.map(q).join(", "))})
  SELECT ${programId}::uuid, d.day::date, ${raw(STORED_COLUMNS.map((c) => `d.${q(c)}`).join(", "))} FROM d
  ON CONFLICT ("programId", day) DO UPDATE SET ${raw(STORED_COLUMNS.map((c) => `${q(c)} = EXCLUDED.${q(c)}`).join(", "))}
  RETURNING 1)
INSERT INTO "PointsRollup" ("programId", "timeZone", "throughDay", "rolledAt")
VALUES (${programId}::uuid, ${state.timeZone}, ${end}::date, ${now.toISOString()}::timestamptz)
ON CONFLICT ("programId") DO UPDATE SET "timeZone" = EXCLUDED."timeZone", "rolledAt" = EXCLUDED."rolledAt",
  "throughDay" = CASE WHEN "PointsRollup"."timeZone" = EXCLUDED."timeZone"
                      THEN GREATEST("PointsRollup"."throughDay", EXCLUDED."throughDay") ELSE EXCLUDED."throughDay" END
RETURNING (SELECT count(*) FROM ins)::int AS days`,
    );
    written += Number(row?.days ?? 0);
    through = end;
    start = addDays(end, 1);
  }
  return { through, days: written };
}

/**
 * The day so far: the day after the last closed one, from its start up to `now` less ROLLUP_GRACE_MINUTES (every
 * write that read the clock before that has committed, the closed days' rule), by the statement of the closed days
 * (`daysSql`, cut at that time), into the program's one `PointsToday` row. Skipped while the row is of the same day
 * and zone and less than TODAY_EVERY_MINUTES older. A replace, never an increment, and never by an older one (two
 * instances at once write the same row). Returns the time it runs through, or null when skipped.
 *
 * Why: the Overview's today, computed from the ledger at view time, probed every customer active today for their
 * previous activity (tens of thousands at 1,000,000 customers). A report now reads this row and computes from the
 * ledger only what was written since `asOf` (`readDays`), probing only the customers active since then who were not
 * active earlier in the day. Exact, as the closed days are: the report adds the ledger since `asOf` to what the row
 * counted before it. No write pays anything for it.
 */
async function rollUpToday(db: Db, programId: string, now: Date, state: RollupState): Promise<Date | null> {
  const asOf = new Date(now.getTime() - ROLLUP_GRACE_MINUTES * 60_000);
  const day = addDays(state.lastClosed, 1);
  const previous = state.todayAsOf === null ? null : new Date(state.todayAsOf);
  if (
    previous !== null &&
    state.todayZone === state.timeZone &&
    state.todayDay === day &&
    asOf.getTime() - previous.getTime() < TODAY_EVERY_MINUTES * 60_000
  )
    return null;
  const columns = STORED_COLUMNS.map(q).join(", ");
  await execute(
    db,
    sql`WITH d AS (${daysSql(programId, state.timeZone, day, day, true, { until: asOf })})
INSERT INTO "PointsToday" ("programId", "timeZone", day, "asOf", ${raw(columns)})
SELECT ${programId}::uuid, ${state.timeZone}, ${day}::date, ${asOf.toISOString()}::timestamptz,
  ${raw(STORED_COLUMNS.map((c) => (c === "activeRecent" ? `coalesce(d.${q(c)}, '{}')` : `coalesce(d.${q(c)}, 0)`)).join(", "))}
FROM (VALUES (1)) v LEFT JOIN d ON true
ON CONFLICT ("programId") DO UPDATE SET "timeZone" = EXCLUDED."timeZone", day = EXCLUDED.day, "asOf" = EXCLUDED."asOf",
  ${raw(STORED_COLUMNS.map((c) => `${q(c)} = EXCLUDED.${q(c)}`).join(", "))}
WHERE "PointsToday"."asOf" < EXCLUDED."asOf" OR "PointsToday"."timeZone" <> EXCLUDED."timeZone"`,
  );
  return asOf;
}

/**
 * The job: every program's closed days, each on its own clock (a live program's is real time, a test program's
 * its stored clock). Idempotent, so instances running it at once only repeat work.
 */
export async function rollUpDuePrograms(db: Db): Promise<{ programs: number; days: number }> {
  const programs = await db.program.findMany({ select: { id: true, test: true, clockAt: true } });
  let days = 0;
  let rolled = 0;
  for (const p of programs) {
    const now = p.test ? p.clockAt : sweepNow();
    if (!now) continue;
    const result = await rollUpPoints(db, p.id, now);
    if (result.days > 0) rolled++;
    days += result.days;
  }
  return { programs: rolled, days };
}

// ---- the report ----------------------------------------------------------------------------------------------

/** The report's flows, in points (and in money, as exact decimal strings, when the program has a value per point). */
export const REPORT_FLOWS = [
  "openingOutstanding",
  "earned",
  "pendingCreated",
  "pendingMatured",
  "pendingCancelled",
  "reversed",
  "redeemed",
  "redemptionsCancelled",
  "expired",
  "adjusted",
  "closingOutstanding",
] as const;
export type ReportFlow = (typeof REPORT_FLOWS)[number];

export type AccountingAmounts = Record<ReportFlow, number> & {
  /** Part of `adjusted`: balances written off by erasures. */
  erased: number;
  /** Pending points not yet matured nor cancelled at the end of the day. */
  pendingOutstanding: number;
};

export interface AccountingDay extends AccountingAmounts {
  day: string;
  /** expired ÷ earned over the 365 days ending this day; null when nothing was earned. */
  breakage: number | null;
  money: Record<ReportFlow | "erased" | "pendingOutstanding", string> | null;
}

export interface PointsAccounting {
  from: string;
  to: string;
  timeZone: string;
  currency: string | null;
  /** The money value of one point (decimal string), or null when not set. */
  pointValue: string | null;
  /** The last day read from the aggregates (the days after it were computed from the ledger), or null. */
  rolledUpThrough: string | null;
  days: AccountingDay[];
  totals: Omit<AccountingDay, "day">;
}

const BREAKAGE_DAYS = 365;

const aggregatesSql = (programId: string, from: string, to: string, activeFrom?: readonly string[]) => sql`
SELECT to_char(day, 'YYYY-MM-DD') AS day, ${raw(DAY_COLUMNS.map((c) => `${q(c)}::float8 AS ${q(c)}`).join(", "))},
  "activeMembers", ${activeNewSql(activeFrom)}::int AS "activeNew"
FROM "PointsDay" x WHERE "programId" = ${programId}::uuid AND day >= ${from}::date AND day <= ${to}::date`;

/** A rolled-up day so far: its day, the time it runs through, and its counts. */
interface Today {
  day: string;
  asOf: Date;
  row: DayRow & { activeRecent: number[] };
}

/** The sum of two cumulative active-recent arrays (`a`, `b`: SQL, either may be null), each extended by its last. */
const addRecentSql = (a: string, b: string) =>
  raw(`(SELECT coalesce(array_agg(coalesce(${a}[least(i, cardinality(${a}))], 0) + coalesce(${b}[least(i, cardinality(${b}))], 0) ORDER BY i), '{}')
    FROM generate_series(1, greatest(cardinality(${a}), cardinality(${b}))) i)`);

/**
 * The days of the ledger (`daysSql`), with each day's new active members of its period (computed only when the
 * periods are given: the Overview; the points accounting reads no active members). With the day so far (`today`, the
 * tail's first day), that day is its row plus the ledger since its `asOf`: flows and counts add, and the customers
 * active since then count only when they were not active earlier in the day (`daysSql`'s `since`).
 */
function tailSql(
  programId: string,
  timeZone: string,
  from: string,
  to: string,
  activeFrom?: readonly string[],
  today?: Today,
) {
  const active = activeFrom !== undefined;
  const out = sql`t.day, ${raw(DAY_COLUMNS.map((c) => `t.${q(c)}`).join(", "))}, t."activeMembers", t."activeRecent",
  ${activeNewSql(activeFrom)}::int AS "activeNew"`;
  const lateral = raw(`CROSS JOIN LATERAL (SELECT t.day::date AS day, t."activeMembers", t."activeRecent") x`);
  const days = daysSql(programId, timeZone, from, to, active, { since: today?.asOf });
  const r = today?.row;
  // A day so far with nothing in it adds nothing (and makes no row: the ledger's days have none for it either).
  if (!today || !r || (DAY_COLUMNS.every((c) => r[c] === 0) && r.activeMembers === 0))
    return sql`SELECT ${out} FROM (${days}) t ${lateral}`;
  const stored = sql`SELECT ${today.day}::text AS day, ${join(DAY_COLUMNS.map((c) => sql`${r[c]}::float8 AS ${raw(q(c))}`))},
    ${r.activeMembers}::int AS "activeMembers", ${`{${r.activeRecent.join(",")}}`}::int[] AS "activeRecent"`;
  return sql`SELECT ${out} FROM (
  SELECT coalesce(d.day, p.day) AS day,
    ${raw(DAY_COLUMNS.map((c) => `coalesce(d.${q(c)}, 0) + coalesce(p.${q(c)}, 0) AS ${q(c)}`).join(", "))},
    coalesce(d."activeMembers", 0) + coalesce(p."activeMembers", 0) AS "activeMembers",
    ${addRecentSql(`d."activeRecent"`, `p."activeRecent"`)} AS "activeRecent"
  FROM (${days}) d FULL JOIN (${stored}) p ON p.day = d.day) t
  ${lateral}`;
}

const aggregatesBeforeSql = (programId: string, before: string, through: string) => sql`
SELECT ${raw(DAY_COLUMNS.map((c) => `coalesce(sum(${q(c)}), 0)::float8 AS ${q(c)}`).join(", "))}
FROM "PointsDay" WHERE "programId" = ${programId}::uuid AND day < ${before}::date AND day <= ${through}::date`;

/** A day's change of the outstanding, and of the pending points. */
export const netOf = (r: DayRow) =>
  FLOW_COLUMNS.reduce((s, c) => s + (CHANGES_BALANCE[c] ? COLUMN_SIGN[c] * r[c] : 0), 0) - r.erased;
const pendingNetOf = (r: DayRow) => r.pendingCreated - r.pendingMatured - r.pendingCancelled;

export const zeroDay = (day: string): DayRow => {
  const out = { day } as DayRow;
  for (const c of DAY_COLUMNS) out[c] = 0;
  out.activeMembers = 0;
  return out;
};

function withMoney(a: AccountingAmounts, value: bigint | null): AccountingDay["money"] {
  if (value === null) return null;
  const keys = [...REPORT_FLOWS, "erased", "pendingOutstanding"] as const;
  return Object.fromEntries(keys.map((k) => [k, moneyOf(a[k], value)])) as AccountingDay["money"];
}

/**
 * What a report reads (the points accounting, and the Overview: lib/staff/queries/reports.ts): the program, the sums
 * of every day before `from`, and each day of `windowFrom`..`to` with anything in it — the rolled-up days from
 * PointsDay, the later ones from the ledger (`daysSql`). A few hundred rows, whatever the ledger's size.
 */
export interface ReadDays {
  timeZone: string;
  currency: string | null;
  pointValue: string | null;
  /** The last rolled-up day read, or null. */
  through: string | null;
  before: DayRow;
  byDay: Map<string, DayRow>;
}

export async function readDays(
  db: Db,
  programId: string,
  from: string,
  to: string,
  windowFrom = from,
  /** The first days of the periods whose active members are wanted (each row's `activeNew`), oldest first. */
  activeFrom?: readonly string[],
): Promise<ReadDays> {
  const [program] = await query<
    DayRow & {
      timeZone: string;
      currency: string | null;
      pointValue: string | null;
      rolledZone: string | null;
      through: string | null;
      todayZone: string | null;
      todayAsOf: Date | string | null;
    }
  >(
    db,
    sql`SELECT p."timeZone", p.currency, p."pointValue"::text AS "pointValue", r."timeZone" AS "rolledZone",
      to_char(r."throughDay", 'YYYY-MM-DD') AS through, t."timeZone" AS "todayZone", t."asOf" AS "todayAsOf",
      to_char(t.day, 'YYYY-MM-DD') AS day, ${raw(DAY_COLUMNS.map((c) => `t.${q(c)}::float8 AS ${q(c)}`).join(", "))},
      t."activeMembers", t."activeRecent"
    FROM "Program" p LEFT JOIN "PointsRollup" r ON r."programId" = p.id LEFT JOIN "PointsToday" t ON t."programId" = p.id
    WHERE p.id = ${programId}::uuid`,
  );
  if (!program) throw new Error(`program ${programId} not found`);
  const through = program.rolledZone === program.timeZone ? program.through : null;
  const tailFrom = through ? addDays(through, 1) : "1970-01-01";
  // The day so far, when it is of the day after the last closed one in the program's zone (else the ledger's).
  const today: Today | undefined =
    through && program.todayZone === program.timeZone && program.day === tailFrom && program.todayAsOf !== null
      ? {
          day: tailFrom,
          asOf: new Date(program.todayAsOf),
          row: { ...numbers(program), activeRecent: ints(program.activeRecent) },
        }
      : undefined;
  const [aggregated, before, tail] = await Promise.all([
    through && windowFrom <= through
      ? query<DayRow>(db, aggregatesSql(programId, windowFrom, minDay(to, through), activeFrom))
      : Promise.resolve([]),
    through ? query<DayRow>(db, aggregatesBeforeSql(programId, from, through)) : Promise.resolve([]),
    tailFrom <= to
      ? query<DayRow>(db, tailSql(programId, program.timeZone, tailFrom, to, activeFrom, today))
      : Promise.resolve([]),
  ]);
  const byDay = new Map<string, DayRow>();
  for (const r of [...aggregated, ...tail].map(numbers)) if (r.day >= windowFrom) byDay.set(r.day, r);
  const sums = before[0] ? numbers({ ...before[0], day: "" }) : zeroDay("");
  for (const r of tail.map(numbers)) if (r.day < from) for (const c of DAY_COLUMNS) sums[c] += r[c];
  return {
    timeZone: program.timeZone,
    currency: program.currency,
    pointValue: program.pointValue,
    through,
    before: sums,
    byDay,
  };
}

/** The points accounting of the program's days `from`..`to` (YYYY-MM-DD in its time zone, both included). */
export async function pointsAccounting(db: Db, programId: string, from: string, to: string): Promise<PointsAccounting> {
  const windowFrom = addDays(from, -BREAKAGE_DAYS);
  const { byDay, before, through, ...program } = await readDays(db, programId, from, to, windowFrom);
  let opening = netOf(before);
  let pending = pendingNetOf(before);
  // Trailing sums for breakage: the window before `from`, then slid day by day.
  let earned365 = 0;
  let expired365 = 0;
  for (const [day, r] of byDay) {
    if (day >= windowFrom && day < from) {
      earned365 += r.earned;
      expired365 += r.expired;
    }
  }
  const value = program.pointValue === null ? null : parsePointValue(program.pointValue);
  const days: AccountingDay[] = [];
  const totals = { erased: 0 } as AccountingAmounts;
  for (const f of REPORT_FLOWS) totals[f] = 0;
  totals.openingOutstanding = opening;
  for (let day = from; day <= to; day = addDays(day, 1)) {
    const r = byDay.get(day) ?? zeroDay(day);
    const leaving = byDay.get(addDays(day, -BREAKAGE_DAYS));
    earned365 += r.earned - (leaving?.earned ?? 0);
    expired365 += r.expired - (leaving?.expired ?? 0);
    const closing = opening + netOf(r);
    pending += pendingNetOf(r);
    const amounts: AccountingAmounts = {
      openingOutstanding: opening,
      earned: r.earned,
      pendingCreated: r.pendingCreated,
      pendingMatured: r.pendingMatured,
      pendingCancelled: r.pendingCancelled,
      reversed: r.reversed,
      redeemed: r.redeemed,
      redemptionsCancelled: r.redemptionsCancelled,
      expired: r.expired,
      adjusted: r.adjustedUp - r.adjustedDown - r.erased,
      erased: r.erased,
      closingOutstanding: closing,
      pendingOutstanding: pending,
    };
    days.push({
      day,
      ...amounts,
      breakage: earned365 > 0 ? expired365 / earned365 : null,
      money: withMoney(amounts, value),
    });
    for (const f of REPORT_FLOWS) if (f !== "openingOutstanding" && f !== "closingOutstanding") totals[f] += amounts[f];
    totals.erased += amounts.erased;
    totals.closingOutstanding = closing;
    totals.pendingOutstanding = pending;
    opening = closing;
  }
  const last = days.at(-1);
  return {
    from,
    to,
    timeZone: program.timeZone,
    currency: value === null ? null : program.currency,
    pointValue: value === null ? null : program.pointValue,
    rolledUpThrough: through,
    days,
    totals: { ...totals, breakage: last?.breakage ?? null, money: withMoney(totals, value) },
  };
}

/** Sets the program's currency and value per point (both, or neither: null). */
export async function setPointValue(
  db: Db,
  programId: string,
  setting: { currency: string; pointValue: string } | null,
): Promise<{ currency: string | null; pointValue: string | null }> {
  const [row] = await query<{ currency: string | null; pointValue: string | null }>(
    db,
    sql`UPDATE "Program" SET currency = ${setting?.currency ?? null}, "pointValue" = ${setting?.pointValue ?? null}::numeric
    WHERE id = ${programId}::uuid RETURNING currency, "pointValue"::text AS "pointValue"`,
  );
  return row ?? { currency: null, pointValue: null };
}

/** The program's currency and value per point (null, null: not set). */
export async function getPointValue(
  db: Db,
  programId: string,
): Promise<{ currency: string | null; pointValue: string | null }> {
  const [row] = await query<{ currency: string | null; pointValue: string | null }>(
    db,
    sql`SELECT currency, "pointValue"::text AS "pointValue" FROM "Program" WHERE id = ${programId}::uuid`,
  );
  return row ?? { currency: null, pointValue: null };
}
