import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/types";
import { int, query, sql } from "@/lib/db/sql";
import {
  advanceClock,
  readClock,
  TIMELINE_LIMIT,
  type AdvanceReport,
  type TimelineEntry,
} from "@/lib/domain/program-clock";
import { loadTiers, type RankedTier } from "@/lib/domain/tier-ranking";
import { staffQuery } from "../authz";

/**
 * The dashboard's reads of a test program's clock: its now, a dry run's preview, the advances it made
 * (lib/domain/clock-advances.ts) with one advance's timeline page by page, and a chart of what they did per month.
 */

/** Timeline rows a preview shows (the whole timeline is on the clock page once applied). */
export const PREVIEW_ROWS = 8;
/** Timeline rows per page on the clock page. */
export const TIMELINE_PAGE = 50;
/** Advances listed on the clock page, newest first. */
export const ADVANCES_LISTED = 50;

export type Applied = AdvanceReport["applied"];

/** A timeline entry as the dashboard shows it: who (their e-mail, null once erased) and what, in words. */
export interface TimelineRow {
  at: string;
  kind: TimelineEntry["kind"];
  /** For a tier change: up or down the program's tier order. */
  direction: "up" | "down" | null;
  customerId: string;
  customerEmail: string | null;
  detail: string;
}

export interface ClockPreview {
  from: string;
  to: string;
  applied: Applied;
  steps: number;
  timelineTotal: number;
  timeline: TimelineRow[];
}

const fmt = (n: unknown) => new Intl.NumberFormat("en-US").format(Number(n ?? 0));

/** The timeline's entries with their customers' e-mails and tier names, and a sentence for each. */
export async function describeTimeline(db: Db, programId: string, entries: TimelineEntry[]): Promise<TimelineRow[]> {
  if (entries.length === 0) return [];
  const ids = [...new Set(entries.map((e) => e.customer))];
  const [customers, tiers] = await Promise.all([
    db.customer.findMany({ where: { programId, id: { in: ids } }, select: { id: true, email: true } }),
    loadTiers(db, programId),
  ]);
  const emails = new Map(customers.map((c) => [c.id, c.email]));
  return entries.map((e) => ({
    at: e.at,
    kind: e.kind,
    direction: e.kind === "tier.changed" ? tierDirection(tiers, e.detail) : null,
    customerId: e.customer,
    customerEmail: emails.get(e.customer) ?? null,
    detail: describe(tiers, e),
  }));
}

function tierDirection(tiers: RankedTier[], detail: Record<string, unknown>): "up" | "down" {
  const rank = (id: unknown) => tiers.findIndex((t) => t.id === id);
  return rank(detail.toTierId) > rank(detail.fromTierId) ? "up" : "down";
}

function describe(tiers: RankedTier[], e: TimelineEntry): string {
  const d = e.detail;
  const tier = (id: unknown) => (id ? (tiers.find((t) => t.id === id)?.name ?? "a removed tier") : "no tier");
  switch (e.kind) {
    case "points.matured":
      return `${fmt(d.points)} pending points matured`;
    case "points.expired":
      return `${fmt(d.points)} points expired (${fmt(d.lots)} ${Number(d.lots) === 1 ? "lot" : "lots"})`;
    case "tier.changed":
      return `${tier(d.fromTierId)} → ${tier(d.toTierId)}: ${fmt(d.periodTierPoints)} tier points in the closed period`;
    case "tier.period_closed":
      return `Period closed, stays ${tier(d.toTierId)} (${fmt(d.periodTierPoints)} tier points)`;
    case "lifecycle.fired":
      return `${String(d.lifecycle)} campaign fired (${String(d.occurrence)}): ${fmt(d.points)} points`;
  }
}

/** A dry run needs the client itself: it opens its own transaction and rolls it back. */
function client(database: Db): PrismaClient {
  if (!("$transaction" in database)) throw new Error("a dry run opens its own transaction");
  return database as PrismaClient;
}

/** The program's clock (every member reads it). */
export const clockNow = staffQuery("program.read", (database, staff) => readClock(database, staff.programId));

/**
 * A dry run of an advance to `to` (managers and owners, as for the advance itself): the report's counts and its first
 * timeline rows; nothing is stored (lib/domain/program-clock.ts rolls it back).
 */
export const clockPreview = staffQuery("clock.advance", async (database, staff, to: string): Promise<ClockPreview> => {
  const report = await advanceClock(client(database), staff.programId, { to: new Date(to), dryRun: true });
  return {
    from: report.from,
    to: report.to,
    applied: report.applied,
    steps: report.steps,
    timelineTotal: report.timelineTotal,
    timeline: await describeTimeline(database, staff.programId, report.timeline.slice(0, PREVIEW_ROWS)),
  };
});

export interface AdvanceSummary {
  id: string;
  createdAt: Date;
  from: Date;
  to: Date;
  applied: Applied;
  steps: number;
  timelineTotal: number;
  /** Entries kept of the timeline (it is cut at TIMELINE_LIMIT). */
  timelineKept: number;
  source: string;
  staffEmail: string | null;
}

/** The program's latest advances, newest first. */
export async function clockAdvances(db: Db, programId: string): Promise<AdvanceSummary[]> {
  const rows = await db.clockAdvance.findMany({
    where: { programId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: ADVANCES_LISTED,
    select: {
      id: true,
      createdAt: true,
      fromAt: true,
      toAt: true,
      applied: true,
      steps: true,
      timelineTotal: true,
      source: true,
      staffEmail: true,
    },
  });
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.createdAt,
    from: r.fromAt,
    to: r.toAt,
    applied: r.applied as unknown as Applied,
    steps: r.steps,
    timelineTotal: r.timelineTotal,
    timelineKept: Math.min(r.timelineTotal, TIMELINE_LIMIT),
    source: r.source,
    staffEmail: r.staffEmail,
  }));
}

/**
 * One page of an advance's stored timeline, in time order, after entry number `after` (a cursor that is not a
 * number starts from the first page); null when the advance is not this program's. SQL: the page is cut from the
 * JSON array by the database, so a long timeline is never read whole.
 */
export async function advanceTimelinePage(
  db: Db,
  programId: string,
  advanceId: string,
  after: string | undefined,
): Promise<{ rows: TimelineRow[]; next: string | null } | null> {
  const exists = await db.clockAdvance.findFirst({ where: { id: advanceId, programId }, select: { id: true } });
  if (!exists) return null;
  const from = after && /^\d{1,7}$/.test(after) ? Number(after) : 0;
  const page = await query<{ ord: number; entry: TimelineEntry | string }>(
    db,
    sql`SELECT e.ord::int AS ord, e.value AS entry
          FROM "ClockAdvance" a CROSS JOIN LATERAL jsonb_array_elements(a.timeline) WITH ORDINALITY AS e(value, ord)
         WHERE a.id = ${advanceId}::uuid AND a."programId" = ${programId}::uuid AND e.ord > ${from}
         ORDER BY e.ord LIMIT ${int(TIMELINE_PAGE + 1)}`,
  );
  const entries = page
    .slice(0, TIMELINE_PAGE)
    .map((r) => (typeof r.entry === "string" ? (JSON.parse(r.entry) as TimelineEntry) : r.entry));
  return {
    rows: await describeTimeline(db, programId, entries),
    next: page.length > TIMELINE_PAGE ? String(page[TIMELINE_PAGE - 1]!.ord) : null,
  };
}

/** One month of the program's clock time: points expired and tier moves, from every advance's stored timeline. */
export interface ClockMonth {
  month: string;
  expiredPoints: number;
  tierUp: number;
  tierDown: number;
}

/**
 * What the clock did per month of clock time (UTC), every month between the first and the last shown. Built from the
 * stored timelines, so an advance whose timeline was cut counts only its kept entries (`cut` says so).
 */
export async function clockMonths(db: Db, programId: string): Promise<{ months: ClockMonth[]; cut: boolean }> {
  const [rows, tiers, cut] = await Promise.all([
    query<{
      month: string;
      kind: string;
      fromTierId: string | null;
      toTierId: string | null;
      n: number;
      points: number;
    }>(
      db,
      sql`SELECT to_char(date_trunc('month', ((e->>'at')::timestamptz) AT TIME ZONE 'UTC'), 'YYYY-MM') AS month,
                 e->>'kind' AS kind, e->'detail'->>'fromTierId' AS "fromTierId", e->'detail'->>'toTierId' AS "toTierId",
                 count(*)::int AS n, coalesce(sum((e->'detail'->>'points')::float8), 0)::float8 AS points
            FROM "ClockAdvance" a CROSS JOIN LATERAL jsonb_array_elements(a.timeline) AS e
           WHERE a."programId" = ${programId}::uuid AND e->>'kind' IN ('points.expired', 'tier.changed')
           GROUP BY 1, 2, 3, 4 ORDER BY 1`,
    ),
    loadTiers(db, programId),
    db.clockAdvance.count({ where: { programId, timelineTotal: { gt: TIMELINE_LIMIT } } }),
  ]);
  const byMonth = new Map<string, ClockMonth>();
  const month = (m: string) => {
    let found = byMonth.get(m);
    if (!found) byMonth.set(m, (found = { month: m, expiredPoints: 0, tierUp: 0, tierDown: 0 }));
    return found;
  };
  for (const r of rows) {
    const m = month(r.month);
    if (r.kind === "points.expired") m.expiredPoints += Number(r.points);
    else if (tierDirection(tiers, r) === "up") m.tierUp += r.n;
    else m.tierDown += r.n;
  }
  const keys = [...byMonth.keys()].sort();
  if (keys.length === 0) return { months: [], cut: cut > 0 };
  const months: ClockMonth[] = [];
  let [y, mo] = keys[0]!.split("-").map(Number) as [number, number];
  const last = keys.at(-1)!;
  for (;;) {
    const key = `${y}-${String(mo).padStart(2, "0")}`;
    months.push(byMonth.get(key) ?? { month: key, expiredPoints: 0, tierUp: 0, tierDown: 0 });
    if (key >= last) break;
    mo += 1;
    if (mo > 12) [y, mo] = [y + 1, 1];
  }
  return { months, cut: cut > 0 };
}
