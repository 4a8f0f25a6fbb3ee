import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { execute, query, raw, sql, type Sql } from "@/lib/db/sql";
import type { Condition } from "../campaigns/definition";
import { checkFilter, filterDeclarations, filterEvaluation, withScanSettings, type FilterDeclarations } from "./filter";

/**
 * Segment membership (API.md "Segments"): `SegmentMembership` holds who was in each segment at its last pass.
 * A pass runs the segment's filter (filter.ts `filterEvaluation`) at an instant of the program clock over the
 * customers in scope and, in ONE statement, diffs that against the stored membership and flips (one full join: only
 * the customers whose answer or next flip changed are written), inserts those who entered, flags those who left
 * (`member` false; their row stays, so `updatedSince` reports them), writes a `segment.entered` / `segment.left`
 * event per change for a segment with `emitEvents`, stores each customer's next flip (`SegmentFlip`) and stamps the
 * segment. The segment's row is locked first (`FOR UPDATE`), so two instances passing over it at once run one after the other and the
 * second finds nothing changed: each change is one event, once.
 *
 * Two kinds of pass:
 * - full: every live customer of the program (creation, a new filter, the safety net below, the end of a test
 *   program's clock advance);
 * - due: only the customers whose answer may have changed since the segment's last pass (`checkedAt`): those whose
 *   next flip has come (time alone: the oldest event of a window leaving it, memberDays crossing a value of the
 *   filter, a future-dated event arriving), and those with a customer event or a ledger entry written since. A due
 *   pass of more than DUE_MAX customers runs as a full one.
 *
 * When: a live program's segments get a due pass at every tick of the scheduler (LOYALTY_JOBS_INTERVAL_MS), and a
 * full pass once `SEGMENT_RECOMPUTE_MINUTES` (default 60) have passed since the last full one — the safety net for
 * changes a due pass does not look for (a declared attribute or a tier changed without a ledger entry). A test
 * program's clock advance steps to each instant a flip is due (program-clock.ts) and runs the due pass there, so a
 * change made by time alone is dated at its instant; the advance ends with a full pass at the instant it reaches.
 */

/** A due pass over more customers than this runs as a full pass (one scan beats a long list of ids). */
export const DUE_MAX = 20_000;

/** The declarations of a stored filter, or null when it no longer fits them (an attribute retyped or removed): such a
 * segment is not recomputed, its membership stays as it was until the filter is changed. */
async function declarations(db: Db, programId: string, filter: unknown): Promise<FilterDeclarations | null> {
  const decl = await filterDeclarations(db, programId, filter);
  return checkFilter(filter, decl).length ? null : decl;
}

export interface RecomputeOutcome {
  entered: number;
  left: number;
  events: number;
  /** The customers the pass looked at (null: every customer of the program, a full pass). */
  scope: number | null;
}

interface SegmentRow {
  id: string;
  programId: string;
  name: string;
  filter: Condition;
  emitEvents: boolean;
  recomputedAt: Date | string | null;
  checkedAt: Date | string | null;
}

/** The customers a due pass looks at (see above), or null when the pass must be full. */
async function dueCustomers(tx: Tx, segment: SegmentRow, now: Date): Promise<string[] | null> {
  const last = segment.checkedAt ?? segment.recomputedAt;
  if (!last) return null;
  const since = new Date(last).toISOString();
  const at = now.toISOString();
  const rows = await query<{ id: string }>(
    tx,
    sql`SELECT f."customerId"::text AS id FROM "SegmentFlip" f
        WHERE f."segmentId" = ${segment.id}::uuid AND f.at <= ${at}::timestamptz
      UNION SELECT e."customerId"::text FROM "CustomerEvent" e
        WHERE e."programId" = ${segment.programId}::uuid AND e."createdAt" >= ${since}::timestamptz
          AND e."createdAt" <= ${at}::timestamptz
      UNION SELECT le."customerId"::text FROM "LedgerEntry" le
        WHERE le."programId" = ${segment.programId}::uuid AND le."createdAt" >= ${since}::timestamptz
          AND le."createdAt" <= ${at}::timestamptz
      LIMIT ${DUE_MAX + 1}`,
  );
  return rows.length > DUE_MAX ? null : rows.map((r) => r.id);
}

/**
 * One pass over a segment at `now` in the caller's transaction (see above): `due` looks only at the customers whose
 * answer may have changed; `emit: false` writes no event (the baseline at creation).
 */
export async function recomputeSegment(
  tx: Tx,
  segmentId: string,
  now: Date,
  options: { emit?: boolean; due?: boolean } = {},
): Promise<RecomputeOutcome | null> {
  const [segment] = await query<SegmentRow>(
    tx,
    sql`SELECT id::text AS id, "programId"::text AS "programId", name, filter, "emitEvents", "recomputedAt",
        "checkedAt"
      FROM "Segment" WHERE id = ${segmentId}::uuid FOR UPDATE`,
  );
  if (!segment) return null;
  // An instance whose clock is behind the last pass does not go back in time.
  const last = [segment.recomputedAt, segment.checkedAt].filter((d) => d !== null).map((d) => new Date(d!));
  if (last.some((d) => d > now)) return null;
  const decl = await declarations(tx, segment.programId, segment.filter);
  if (!decl) return null;
  const at = now.toISOString();
  const emit = (options.emit ?? true) && segment.emitEvents;
  const customers = options.due ? await dueCustomers(tx, segment, now) : null;
  if (customers && customers.length === 0) {
    await execute(tx, sql`UPDATE "Segment" SET "checkedAt" = ${at}::timestamptz WHERE id = ${segment.id}::uuid`);
    return { entered: 0, left: 0, events: 0, scope: 0 };
  }
  const full = customers === null;
  const ev = filterEvaluation(segment.filter, decl, segment.programId, now, customers ? { customers } : {});
  const inScope = (column: Sql) => (customers ? sql` AND ${column} = ANY(${customers}::uuid[])` : raw(""));
  if (full) await withScanSettings(tx, async () => undefined);
  const [row] = await query<Omit<RecomputeOutcome, "scope">>(
    tx,
    sql`WITH ev AS (${ev}),
    diff AS MATERIALIZED (
      SELECT coalesce(n.id, w.id, f.id) AS id, coalesce(n.member, false) AS member, w.id IS NOT NULL AS was,
             n.next, f.at AS flip
      FROM ev n
        FULL JOIN (SELECT m."customerId" AS id FROM "SegmentMembership" m
                   WHERE m."segmentId" = ${segment.id}::uuid AND m.member${inScope(raw(`m."customerId"`))}) w
          ON w.id = n.id
        FULL JOIN (SELECT x."customerId" AS id, x.at FROM "SegmentFlip" x
                   WHERE x."segmentId" = ${segment.id}::uuid${inScope(raw(`x."customerId"`))}) f
          ON f.id = coalesce(n.id, w.id)
      WHERE coalesce(n.member, false) <> (w.id IS NOT NULL) OR n.next IS DISTINCT FROM f.at
    ), entered AS (
      INSERT INTO "SegmentMembership" ("segmentId", "customerId", "programId", member, "changedAt")
      SELECT ${segment.id}::uuid, d.id, ${segment.programId}::uuid, true, ${at}::timestamptz FROM diff d
      WHERE d.member AND NOT d.was
      ON CONFLICT ("segmentId", "customerId") DO UPDATE SET member = true, "changedAt" = EXCLUDED."changedAt"
        WHERE NOT "SegmentMembership".member
      RETURNING "customerId"
    ), gone AS (
      UPDATE "SegmentMembership" s SET member = false, "changedAt" = ${at}::timestamptz
      FROM diff d
      WHERE s."segmentId" = ${segment.id}::uuid AND s."customerId" = d.id AND d.was AND NOT d.member AND s.member
      RETURNING s."customerId"
    ), unflip AS (
      DELETE FROM "SegmentFlip" f USING diff d
      WHERE f."segmentId" = ${segment.id}::uuid AND f."customerId" = d.id AND d.next IS NULL AND d.flip IS NOT NULL
      RETURNING 1
    ), flip AS (
      INSERT INTO "SegmentFlip" ("segmentId", "customerId", "programId", at)
      SELECT ${segment.id}::uuid, d.id, ${segment.programId}::uuid, d.next FROM diff d
      WHERE d.next IS NOT NULL AND d.next IS DISTINCT FROM d.flip
      ON CONFLICT ("segmentId", "customerId") DO UPDATE SET at = EXCLUDED.at WHERE "SegmentFlip".at <> EXCLUDED.at
      RETURNING 1
    ), events AS (
      INSERT INTO "Event" ("programId", type, data, "createdAt")
      SELECT ${segment.programId}::uuid, x.type,
             jsonb_build_object('segmentId', ${segment.id}::text, 'segmentName', ${segment.name}::text,
                                'customerId', x.id, 'email', c.email),
             ${at}::timestamptz
      FROM (SELECT 'segment.entered' AS type, "customerId" AS id FROM entered
            UNION ALL SELECT 'segment.left', "customerId" FROM gone) x
        JOIN "Customer" c ON c.id = x.id
      WHERE ${emit}::boolean
      ORDER BY x.id
      RETURNING 1
    ), stamp AS (
      UPDATE "Segment" SET "checkedAt" = ${at}::timestamptz,
        "recomputedAt" = CASE WHEN ${full}::boolean THEN ${at}::timestamptz ELSE "recomputedAt" END
      WHERE id = ${segment.id}::uuid RETURNING 1
    )
    SELECT (SELECT count(*) FROM entered)::int AS entered, (SELECT count(*) FROM gone)::int AS "left",
           (SELECT count(*) FROM events)::int AS events, (SELECT count(*) FROM stamp)::int AS stamped,
           (SELECT count(*) FROM unflip)::int + (SELECT count(*) FROM flip)::int AS flips`,
  );
  return {
    entered: Number(row!.entered),
    left: Number(row!.left),
    events: Number(row!.events),
    scope: customers ? customers.length : null,
  };
}

/** Every segment of a program, passed over at `now` (a test program's clock advance): full, or `due` only. */
export async function recomputeProgramSegments(
  tx: Tx,
  programId: string,
  now: Date,
  options: { due?: boolean } = {},
): Promise<RecomputeOutcome> {
  const total: RecomputeOutcome = { entered: 0, left: 0, events: 0, scope: null };
  const ids = await query<{ id: string }>(
    tx,
    sql`SELECT id::text AS id FROM "Segment" WHERE "programId" = ${programId}::uuid ORDER BY id`,
  );
  for (const { id } of ids) {
    const r = await recomputeSegment(tx, id, now, { due: options.due ?? false });
    if (!r) continue;
    total.entered += r.entered;
    total.left += r.left;
    total.events += r.events;
  }
  return total;
}

/**
 * The earliest instant after `after` (any, when null) at which a customer's answer to one of the program's segments
 * can flip with time alone: the clock advance steps to it (program-clock.ts). Null when none.
 */
export async function nextSegmentFlip(db: Db, programId: string, after: Date | null): Promise<Date | null> {
  const since = after?.toISOString() ?? null;
  const [row] = await query<{ at: Date | string | null }>(
    db,
    sql`SELECT min(f.at) AS at FROM "Segment" s CROSS JOIN LATERAL (
        SELECT x.at FROM "SegmentFlip" x WHERE x."segmentId" = s.id
          AND (${since}::timestamptz IS NULL OR x.at > ${since}::timestamptz)
        ORDER BY x.at LIMIT 1) f
      WHERE s."programId" = ${programId}::uuid`,
  );
  return row?.at ? new Date(row.at) : null;
}

/**
 * The scheduler's pass (live programs, real time): every segment not yet passed over at `now`, claimed with SKIP
 * LOCKED so instances split the work, in `run`'s transaction: a full pass when never recomputed or not for
 * `intervalMinutes` (the safety net), else a due pass. `programId` narrows it to one program (the bench);
 * `full: false` never runs the safety net. Answers how many segments it passed over and the events written.
 */
export async function recomputeDueSegments(
  run: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>,
  now: Date,
  intervalMinutes: number,
  options: { programId?: string; full?: boolean } = {},
): Promise<{ segments: number; full: number; events: number; customers: number }> {
  const at = now.toISOString();
  const stale = new Date(now.getTime() - intervalMinutes * 60_000).toISOString();
  const only = options.programId ?? null;
  const result = { segments: 0, full: 0, events: 0, customers: 0 };
  for (let i = 0; i < 10_000; i++) {
    const done = await run(async (tx) => {
      const [next] = await query<{ id: string; full: boolean }>(
        tx,
        sql`SELECT s.id::text AS id,
            (s."recomputedAt" IS NULL OR s."recomputedAt" <= ${stale}::timestamptz) AS full
          FROM "Segment" s JOIN "Program" p ON p.id = s."programId"
          WHERE NOT p.test AND (${only}::uuid IS NULL OR s."programId" = ${only}::uuid)
            AND (s."checkedAt" IS NULL OR s."checkedAt" < ${at}::timestamptz)
          ORDER BY s."checkedAt" NULLS FIRST, s.id LIMIT 1 FOR UPDATE OF s SKIP LOCKED`,
      );
      if (!next) return false;
      const full = next.full && options.full !== false;
      const r = await recomputeSegment(tx, next.id, now, { due: !full });
      if (!r) {
        // A filter that no longer fits its declarations (or a clock behind): stamped, so it is not retried at once.
        await execute(
          tx,
          sql`UPDATE "Segment" SET "checkedAt" = GREATEST("checkedAt", ${at}::timestamptz) WHERE id = ${next.id}::uuid`,
        );
      } else {
        result.events += r.events;
        result.customers += r.scope ?? 0;
        if (r.scope === null) result.full += 1;
      }
      result.segments += 1;
      return true;
    });
    if (!done) break;
  }
  return result;
}
