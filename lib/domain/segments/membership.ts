import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { query, raw, sql } from "@/lib/db/sql";
import type { Condition } from "../campaigns/definition";
import { checkFilter, filterDeclarations, filterQuery, type FilterDeclarations } from "./filter";

/**
 * Segment membership (API.md "Segments"): `SegmentMembership` holds who was in each segment at its last recompute.
 * A recompute runs the segment's filter query at an instant of the program clock and, in ONE statement, inserts the
 * customers who entered, flags those who left (`member` false; their row stays, so `updatedSince` reports them),
 * writes a `segment.entered` / `segment.left` event per change for a segment with `emitEvents`, and stamps the
 * segment's `recomputedAt`. The segment's row is locked first (`FOR UPDATE`), so two instances recomputing it at once
 * run one after the other and the second finds nothing changed: each change is one event, once.
 *
 * When it runs (the time-relative predicates: memberDays, event windows, lastAt): a live program's segments are
 * recomputed by the scheduler once `SEGMENT_RECOMPUTE_MINUTES` (default 60) have passed on its clock since the
 * last recompute; a test program's at the end of every clock advance (program-clock.ts), at the instant the clock
 * reaches. A change that happens and is undone between two recomputes is not seen.
 */

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
}

/** Recomputes one segment at `now` in the caller's transaction (see above); `emit: false` writes no event. */
export async function recomputeSegment(
  tx: Tx,
  segmentId: string,
  now: Date,
  options: { emit: boolean } = { emit: true },
): Promise<RecomputeOutcome | null> {
  const [segment] = await query<{
    id: string;
    programId: string;
    name: string;
    filter: Condition;
    emitEvents: boolean;
    recomputedAt: Date | string | null;
  }>(
    tx,
    sql`SELECT id::text AS id, "programId"::text AS "programId", name, filter, "emitEvents", "recomputedAt"
      FROM "Segment" WHERE id = ${segmentId}::uuid FOR UPDATE`,
  );
  if (!segment) return null;
  // An instance whose clock is behind the last recompute does not go back in time.
  if (segment.recomputedAt && new Date(segment.recomputedAt) > now) return null;
  const decl = await declarations(tx, segment.programId, segment.filter);
  if (!decl) return null;
  const at = now.toISOString();
  const emit = options.emit && segment.emitEvents;
  const members = filterQuery(segment.filter, decl, segment.programId, now, { select: raw("c.id") });
  const [row] = await query<RecomputeOutcome>(
    tx,
    sql`WITH now_in AS (${members}),
    entered AS (
      INSERT INTO "SegmentMembership" ("segmentId", "customerId", "programId", member, "changedAt")
      SELECT ${segment.id}::uuid, n.id, ${segment.programId}::uuid, true, ${at}::timestamptz FROM now_in n
      ON CONFLICT ("segmentId", "customerId") DO UPDATE SET member = true, "changedAt" = EXCLUDED."changedAt"
        WHERE NOT "SegmentMembership".member
      RETURNING "customerId"
    ), gone AS (
      UPDATE "SegmentMembership" s SET member = false, "changedAt" = ${at}::timestamptz
      WHERE s."segmentId" = ${segment.id}::uuid AND s.member AND NOT EXISTS (SELECT 1 FROM now_in n WHERE n.id = s."customerId")
      RETURNING s."customerId"
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
      UPDATE "Segment" SET "recomputedAt" = ${at}::timestamptz WHERE id = ${segment.id}::uuid RETURNING 1
    )
    SELECT (SELECT count(*) FROM entered)::int AS entered, (SELECT count(*) FROM gone)::int AS "left",
           (SELECT count(*) FROM events)::int AS events, (SELECT count(*) FROM stamp)::int AS stamped`,
  );
  return { entered: Number(row!.entered), left: Number(row!.left), events: Number(row!.events) };
}

/** Every segment of a program, recomputed at `now` (a test program's clock advance). */
export async function recomputeProgramSegments(tx: Tx, programId: string, now: Date): Promise<RecomputeOutcome> {
  const total: RecomputeOutcome = { entered: 0, left: 0, events: 0 };
  const ids = await query<{ id: string }>(
    tx,
    sql`SELECT id::text AS id FROM "Segment" WHERE "programId" = ${programId}::uuid ORDER BY id`,
  );
  for (const { id } of ids) {
    const r = await recomputeSegment(tx, id, now);
    if (!r) continue;
    total.entered += r.entered;
    total.left += r.left;
    total.events += r.events;
  }
  return total;
}

/**
 * The scheduler's pass (live programs, real time): the segment due first (never recomputed, or not for
 * `intervalMinutes`), claimed with SKIP LOCKED so instances split the work, recomputed in `run`'s transaction; until
 * none is due. Answers how many segments it recomputed.
 */
export async function recomputeDueSegments(
  run: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>,
  now: Date,
  intervalMinutes: number,
): Promise<{ segments: number; events: number }> {
  const due = new Date(now.getTime() - intervalMinutes * 60_000).toISOString();
  let segments = 0;
  let events = 0;
  for (let i = 0; i < 10_000; i++) {
    const done = await run(async (tx) => {
      const [next] = await query<{ id: string }>(
        tx,
        sql`SELECT s.id::text AS id FROM "Segment" s JOIN "Program" p ON p.id = s."programId"
          WHERE NOT p.test AND (s."recomputedAt" IS NULL OR s."recomputedAt" <= ${due}::timestamptz)
          ORDER BY s."recomputedAt" NULLS FIRST, s.id LIMIT 1 FOR UPDATE OF s SKIP LOCKED`,
      );
      if (!next) return false;
      const r = await recomputeSegment(tx, next.id, now);
      if (!r) {
        // A filter that no longer fits its declarations: stamped, so it is not retried at once.
        await tx.segment.update({ where: { id: next.id }, data: { recomputedAt: now } });
      } else events += r.events;
      segments += 1;
      return true;
    });
    if (!done) break;
  }
  return { segments, events };
}
