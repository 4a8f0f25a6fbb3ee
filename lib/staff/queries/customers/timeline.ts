import "server-only";
import { join, query, raw, sql, type Sql } from "@/lib/db/sql";
import { isoSql, type Db } from "@/lib/db/types";
import { requireCustomer } from "@/lib/domain/customer-lookup";
import { decodeCursor, encodeCursor } from "@/lib/domain/cursor";
import { TIMELINE_KINDS, type TimelineKind } from "../../forms/customers";
import { staffQuery } from "../../authz";

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
 * A points entry's detail: its reason, and for an entry a campaign made, the campaign named with its version
 * ("campaign: Double points (v2)"), from the provenance the entry carries (lib/domain/campaigns/customer-events.ts).
 */
const CAMPAIGN_DETAIL = raw(`CASE WHEN e.metadata->>'campaignName' IS NULL THEN e.reason
  ELSE concat_ws(' · ', 'campaign: ' || (e.metadata->>'campaignName') || ' (v' || (e.metadata->>'campaignVersion') || ')',
    NULLIF(e.reason, 'campaign: ' || (e.metadata->>'campaignName'))) END`);

/** Which rows a timeline page reads: the customer's, before the position (at, id), at most `limit` of each source. */
interface Position {
  programId: string;
  customerId: string;
  at: string;
  id: string;
  limit: number;
}

/**
 * Each source of the timeline, newest first, before the position, at most `limit` rows: each is served by an index
 * that starts with the customer (the audit log's by its entity id). Columns: kind, id, at, title, detail, points,
 * balanceAfter, source, staff name and e-mail, audit before/after.
 */
const TIMELINE_SOURCES: Record<TimelineKind, (pos: Position) => Sql> = {
  points: (
    pos,
  ) => sql`SELECT 'points' AS kind, e.id, e."createdAt" AS at, e.type AS title, ${CAMPAIGN_DETAIL} AS detail, e.points,
      e."balanceAfter", e.source, s.name AS "staffName", s.email AS "staffEmail", NULL::jsonb AS before, NULL::jsonb AS after
    FROM "LedgerEntry" e LEFT JOIN "StaffUser" s ON e.actor LIKE 'staff:%' AND s.id::text = substr(e.actor, 7)
    WHERE e."customerId" = ${pos.customerId}::uuid AND (e."createdAt", e.id) < (${pos.at}::timestamptz, ${pos.id}::uuid)
    ORDER BY e."createdAt" DESC, e.id DESC LIMIT ${pos.limit}`,
  staff: (
    pos,
  ) => sql`SELECT 'staff' AS kind, a.id AS id, a."createdAt" AS at, a.action AS title, NULL AS detail, NULL::int AS points, NULL::int AS "balanceAfter", NULL AS source, s.name AS "staffName", a."staffEmail" AS "staffEmail", a.before AS before, a.after AS after
    FROM "AuditLog" a LEFT JOIN "StaffUser" s ON s.id = a."staffId"
    WHERE a."entityId" = ${pos.customerId}::text AND a."entityType" = 'customer' AND a."programId" = ${pos.programId}::uuid
      AND a.action <> ALL(${SHOWN_ELSEWHERE}::text[])
      AND (a."createdAt", a.id) < (${pos.at}::timestamptz, ${pos.id}::uuid)
    ORDER BY a."createdAt" DESC, a.id DESC LIMIT ${pos.limit}`,
  redemption: (pos) => sql`SELECT 'redemption' AS kind, r.id AS id, r."createdAt" AS at, w.name AS title,
      r.code || CASE WHEN r."cancelledAt" IS NOT NULL THEN ' · cancelled (void)' ELSE '' END AS detail, -r.points AS points, NULL::int AS "balanceAfter", NULL AS source, NULL AS "staffName", NULL AS "staffEmail", NULL::jsonb AS before, NULL::jsonb AS after
    FROM "Redemption" r JOIN "Reward" w ON w.id = r."rewardId"
    WHERE r."customerId" = ${pos.customerId}::uuid AND (r."createdAt", r.id) < (${pos.at}::timestamptz, ${pos.id}::uuid)
    ORDER BY r."createdAt" DESC, r.id DESC LIMIT ${pos.limit}`,
  coupon: (
    pos,
  ) => sql`SELECT 'coupon' AS kind, c.id AS id, c."assignedAt" AS at, p.name AS title, c.code AS detail, NULL::int AS points, NULL::int AS "balanceAfter", NULL AS source, NULL AS "staffName", NULL AS "staffEmail", NULL::jsonb AS before, NULL::jsonb AS after
    FROM "Coupon" c JOIN "CouponPool" p ON p.id = c."poolId"
    WHERE c."customerId" = ${pos.customerId}::uuid AND c."assignedAt" IS NOT NULL AND (c."assignedAt", c.id) < (${pos.at}::timestamptz, ${pos.id}::uuid)
    ORDER BY c."assignedAt" DESC, c.id DESC LIMIT ${pos.limit}`,
  notification: (
    pos,
  ) => sql`SELECT 'notification' AS kind, n.id AS id, n."createdAt" AS at, n.title AS title, n.category || ' · ' || n.status AS detail, NULL::int AS points, NULL::int AS "balanceAfter", NULL AS source, NULL AS "staffName", NULL AS "staffEmail", NULL::jsonb AS before, NULL::jsonb AS after
    FROM "Notification" n
    WHERE n."customerId" = ${pos.customerId}::uuid AND (n."createdAt", n.id) < (${pos.at}::timestamptz, ${pos.id}::uuid)
    ORDER BY n."createdAt" DESC, n.id DESC LIMIT ${pos.limit}`,
  note: (
    pos,
  ) => sql`SELECT 'note' AS kind, n.id AS id, n."createdAt" AS at, 'note' AS title, n.body AS detail, NULL::int AS points, NULL::int AS "balanceAfter", NULL AS source, s.name AS "staffName", s.email AS "staffEmail", NULL::jsonb AS before, NULL::jsonb AS after
    FROM "CustomerNote" n LEFT JOIN "StaffUser" s ON s.id = n."staffId"
    WHERE n."customerId" = ${pos.customerId}::uuid AND (n."createdAt", n.id) < (${pos.at}::timestamptz, ${pos.id}::uuid)
    ORDER BY n."createdAt" DESC, n.id DESC LIMIT ${pos.limit}`,
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
  const position: Position = { programId, customerId, ...after, limit: limit + 1 };
  // The entry's columns, with the staff member and the audit row's before/after that `by` and `detail` are made of.
  const rows = await query<
    Omit<TimelineEntry, "by"> & {
      staffName: string | null;
      staffEmail: string | null;
      before: unknown;
      after: unknown;
    }
  >(
    db,
    sql`SELECT kind, id, ${raw(isoSql("at"))} AS at, title, detail, points, "balanceAfter", source, "staffName", "staffEmail", before, after
     FROM (${join(
       kinds.map((k) => sql`(${TIMELINE_SOURCES[k](position)})`),
       "\n UNION ALL ",
     )}) t
     ORDER BY t.at DESC, t.id DESC LIMIT ${limit + 1}`,
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
