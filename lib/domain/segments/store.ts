import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { query, raw, sql } from "@/lib/db/sql";
import { findRow } from "@/lib/db/require-row";
import { conflict, notFound, uniqueOr409, validationFailed } from "@/lib/errors";
import type { Condition } from "../campaigns/definition";
import { encodeCursor, decodeCursor } from "../cursor";
import { requireProgram } from "../programs";
import { checkFilter, filterDeclarations, filterQuery, withScanSettings } from "./filter";
import { recomputeSegment } from "./membership";

/**
 * Segments (API.md "Segments"): a named filter (filter.ts) over the program's customers. Preview, members and a
 * customer's segments run the filter's one query at the program clock's now; `SegmentMembership` is who was in at
 * the last recompute (membership.ts), for `updatedSince` and the entered/left webhooks.
 */

export const MAX_SEGMENTS = 100;
export const SAMPLE_SIZE = 20;

export interface SegmentView {
  id: string;
  name: string;
  filter: Condition;
  emitEvents: boolean;
  recomputedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

type SegmentRow = {
  id: string;
  name: string;
  filter: unknown;
  emitEvents: boolean;
  recomputedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};
const view = (r: SegmentRow): SegmentView => ({
  id: r.id,
  name: r.name,
  filter: r.filter as Condition,
  emitEvents: r.emitEvents,
  recomputedAt: r.recomputedAt?.toISOString() ?? null,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** The filter checked against the program's declarations (400 by path under `path`) and its declarations. */
export async function checkedFilter(db: Db, programId: string, filter: unknown, path = "filter") {
  const decl = await filterDeclarations(db, programId, filter);
  const problems = checkFilter(filter, decl, path);
  if (problems.length) throw validationFailed(problems);
  return { filter: filter as Condition, decl };
}

const nameTaken = () =>
  conflict("Another segment of the program has this name.", [{ path: "name", message: "is taken" }]);

export async function createSegment(
  tx: Tx,
  input: { programId: string; name: string; filter: unknown; emitEvents: boolean; now: Date },
): Promise<SegmentView> {
  await requireProgram(tx, input.programId);
  await checkedFilter(tx, input.programId, input.filter);
  if ((await tx.segment.count({ where: { programId: input.programId } })) >= MAX_SEGMENTS)
    throw conflict(`A program has at most ${MAX_SEGMENTS} segments.`);
  const row = await uniqueOr409(
    () =>
      tx.segment.create({
        data: {
          programId: input.programId,
          name: input.name,
          filter: input.filter as object,
          emitEvents: input.emitEvents,
          createdAt: input.now,
          updatedAt: input.now,
        },
      }),
    nameTaken,
  );
  // Who is in at creation is the baseline: entering it is not a change (no webhook).
  await recomputeSegment(tx, row.id, input.now, { emit: false });
  return getSegment(tx, input.programId, row.id);
}

/** Changes a segment; a new filter is recomputed at once (the customers it moves in or out are changes). */
export async function updateSegment(
  tx: Tx,
  input: {
    programId: string;
    segmentId: string;
    name?: string;
    filter?: unknown;
    emitEvents?: boolean;
    now: Date;
  },
): Promise<SegmentView> {
  await getSegment(tx, input.programId, input.segmentId);
  if (input.filter !== undefined) await checkedFilter(tx, input.programId, input.filter);
  await uniqueOr409(
    () =>
      tx.segment.update({
        where: { id: input.segmentId },
        data: {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.filter !== undefined && { filter: input.filter as object }),
          ...(input.emitEvents !== undefined && { emitEvents: input.emitEvents }),
          updatedAt: input.now,
        },
      }),
    nameTaken,
  );
  if (input.filter !== undefined) await recomputeSegment(tx, input.segmentId, input.now, { emit: true });
  return getSegment(tx, input.programId, input.segmentId);
}

export async function deleteSegment(tx: Tx, programId: string, segmentId: string): Promise<void> {
  await getSegment(tx, programId, segmentId);
  await tx.segmentMembership.deleteMany({ where: { segmentId } });
  await tx.segmentFlip.deleteMany({ where: { segmentId } });
  await tx.segment.delete({ where: { id: segmentId } });
}

export async function getSegment(db: Db, programId: string, segmentId: string): Promise<SegmentView> {
  const row = await findRow(segmentId, (id) => db.segment.findFirst({ where: { id, programId } }));
  if (!row) throw notFound("segment");
  return view(row);
}

export async function listSegments(db: Db, programId: string): Promise<SegmentView[]> {
  return (await db.segment.findMany({ where: { programId }, orderBy: [{ name: "asc" }] })).map(view);
}

export interface SegmentMember {
  customerId: string;
  email: string;
}

/** The live count and the first SAMPLE_SIZE members (by id) of a filter, in one statement (one snapshot). */
export async function previewSegment(
  db: Db,
  programId: string,
  filter: unknown,
  now: Date,
): Promise<{ count: number; sample: SegmentMember[] }> {
  const checked = await checkedFilter(db, programId, filter);
  const members = filterQuery(checked.filter, checked.decl, programId, now);
  const [row] = await withScanSettings(db, (tx) =>
    query<{ count: number; sample: SegmentMember[] }>(
      tx,
      sql`WITH m AS (${members})
      SELECT (SELECT count(*)::int FROM m) AS count,
        coalesce((SELECT json_agg(json_build_object('customerId', s.id, 'email', s.email) ORDER BY s.id)
          FROM (SELECT id, email FROM m ORDER BY id LIMIT ${SAMPLE_SIZE}) s), '[]'::json) AS sample`,
    ),
  );
  return { count: Number(row!.count), sample: row!.sample };
}

/** A page of the segment's members now (keyset by customer id), by the filter's one query. */
export async function segmentMembers(
  db: Db,
  input: { programId: string; segmentId: string; cursor: string | null; limit: number; now: Date },
) {
  const segment = await getSegment(db, input.programId, input.segmentId);
  const after = membersAfter(input.cursor);
  const decl = await filterDeclarations(db, input.programId, segment.filter);
  const rows = await query<SegmentMember & { id: string }>(
    db,
    filterQuery(segment.filter, decl, input.programId, input.now, {
      select: raw(`c.id, c.id AS "customerId", c.email`),
      and: after ? sql`c.id > ${after.id}::uuid` : undefined,
      tail: sql`ORDER BY c.id LIMIT ${input.limit + 1}`,
    }),
  );
  return membersPage(rows, input.limit);
}

/**
 * A segment's live count and one page of its members now (as `segmentMembers`), in one statement: the filter runs
 * once for both, and the count and the page are of one snapshot (the dashboard's segment page).
 */
export async function countedSegmentMembers(
  db: Db,
  input: { programId: string; segment: SegmentView; cursor: string | null; limit: number; now: Date },
) {
  const after = membersAfter(input.cursor);
  const decl = await filterDeclarations(db, input.programId, input.segment.filter);
  const members = filterQuery(input.segment.filter, decl, input.programId, input.now);
  const [row] = await query<{ count: number; page: SegmentMember[] }>(
    db,
    sql`WITH m AS (${members})
      SELECT (SELECT count(*)::int FROM m) AS count,
        coalesce((SELECT json_agg(json_build_object('customerId', s.id, 'email', s.email) ORDER BY s.id)
          FROM (SELECT id, email FROM m ${after ? sql`WHERE id > ${after.id}::uuid` : raw("")}
                ORDER BY id LIMIT ${input.limit + 1}) s), '[]'::json) AS page`,
  );
  return { count: Number(row!.count), members: membersPage(row!.page, input.limit) };
}

/** The members' keyset: the customer id after which a page starts (400 for a cursor that is not one of this list). */
function membersAfter(cursor: string | null) {
  const after = cursor ? decodeCursor(cursor) : null;
  if (cursor && !after) throw validationFailed([{ path: "cursor", message: "is not a cursor of this list" }]);
  return after;
}

/** A page of members from `limit + 1` rows read in id order, with the cursor of the next page when there is one. */
function membersPage(rows: SegmentMember[], limit: number) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map((r) => ({ customerId: r.customerId, email: r.email })),
    nextCursor: rows.length > limit && last ? encodeCursor(EPOCH, last.customerId) : null,
  };
}
const EPOCH = "1970-01-01T00:00:00.000Z";

/**
 * The changes of membership at the recomputes since `updatedSince` (exclusive), in (changedAt, customerId) order:
 * each customer's state as of the latest recompute (`member` true: in, false: left).
 */
export async function segmentChanges(
  db: Db,
  input: { programId: string; segmentId: string; updatedSince: Date; cursor: string | null; limit: number },
) {
  const segment = await getSegment(db, input.programId, input.segmentId);
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  if (input.cursor && !after) throw validationFailed([{ path: "cursor", message: "is not a cursor of this list" }]);
  const since = input.updatedSince.toISOString();
  const rows = await query<{ customerId: string; email: string | null; member: boolean; changedAt: Date | string }>(
    db,
    sql`SELECT m."customerId"::text AS "customerId", c.email, m.member, m."changedAt"
      FROM "SegmentMembership" m JOIN "Customer" c ON c.id = m."customerId"
      WHERE m."segmentId" = ${segment.id}::uuid AND m."changedAt" > ${since}::timestamptz
        ${after ? sql`AND (m."changedAt", m."customerId") > (${after.at}::timestamptz, ${after.id}::uuid)` : raw("")}
      ORDER BY m."changedAt", m."customerId" LIMIT ${input.limit + 1}`,
  );
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    data: page.map((r) => ({
      customerId: r.customerId,
      email: r.email,
      member: r.member,
      changedAt: new Date(r.changedAt).toISOString(),
    })),
    recomputedAt: segment.recomputedAt,
    nextCursor:
      rows.length > input.limit && last ? encodeCursor(new Date(last.changedAt).toISOString(), last.customerId) : null,
  };
}

/** The segments (id and name) a customer is in now: each segment's filter query for that one customer. */
export async function segmentsOfCustomer(
  db: Db,
  programId: string,
  customerId: string,
  now: Date,
): Promise<{ id: string; name: string }[]> {
  const segments = await listSegments(db, programId);
  if (segments.length === 0) return [];
  const inside: { id: string; name: string }[] = [];
  for (const s of segments) {
    const decl = await filterDeclarations(db, programId, s.filter);
    const rows = await query<{ id: string }>(
      db,
      filterQuery(s.filter, decl, programId, now, { select: raw("c.id"), customers: [customerId] }),
    );
    if (rows.length) inside.push({ id: s.id, name: s.name });
  }
  return inside;
}
