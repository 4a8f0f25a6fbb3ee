import "server-only";
import { query, sql } from "@/lib/db/sql";
import type { Db } from "@/lib/db/types";
import { AppError } from "@/lib/errors";
import { customerAttributeTypes } from "@/lib/domain/customer-attributes";
import { listSegments } from "@/lib/domain/segments/store";
import { isLifecycle, triggerLabel, type CampaignDefinition, type SkipReason } from "@/lib/domain/campaigns/definition";
import {
  getCampaign,
  listCampaigns,
  listEventTypes,
  type CampaignView,
  type EventTypeView,
} from "@/lib/domain/campaigns/store";

/**
 * The campaigns pages' reads: the list with what each campaign runs (or will run), one campaign with its versions
 * and figures from the event log (`CustomerEvent.outcome`: what each event's campaigns did), and what the builder
 * offers (event types, coupon pools, tier names).
 */

/** A campaign in the list: its status, version, priority, budget and budget used. */
export interface CampaignRow {
  id: string;
  name: string;
  status: CampaignView["status"];
  version: number | null;
  /** A change is waiting for the next activation. */
  pendingDraft: boolean;
  trigger: string;
  priority: number;
  stacking: CampaignDefinition["stacking"];
  budgetPoints: number | null;
  budgetUsed: number;
}

/** The definition a campaign runs, or (before its first activation) the one it will run. */
const currentDefinition = (c: CampaignView, running: CampaignDefinition | undefined) => running ?? c.draft;

/** Every campaign of the program, newest first (a program has tens, not thousands: the list pages through them). */
export async function allCampaigns(db: Db, programId: string): Promise<CampaignView[]> {
  const out: CampaignView[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: CampaignView[]; nextCursor: string | null } = await listCampaigns(db, programId, {
      limit: 100,
      cursor,
    });
    out.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** The definition of each campaign's running version, by campaign id (a draft-only campaign has none). */
export async function runningDefinitions(
  db: Db,
  programId: string,
  campaigns: CampaignView[],
): Promise<Map<string, CampaignDefinition>> {
  const versions = await db.campaignVersion.findMany({
    where: { programId, campaignId: { in: campaigns.map((c) => c.id) } },
    select: { campaignId: true, version: true, definition: true },
  });
  return new Map(
    versions
      .filter((v) => campaigns.some((c) => c.id === v.campaignId && c.version === v.version))
      .map((v) => [v.campaignId, v.definition as unknown as CampaignDefinition]),
  );
}

export async function campaignRows(db: Db, programId: string): Promise<CampaignRow[]> {
  const campaigns = await allCampaigns(db, programId);
  const running = await runningDefinitions(db, programId, campaigns);
  return campaigns.map((c) => {
    const d = currentDefinition(c, running.get(c.id))!;
    return {
      id: c.id,
      name: c.name,
      status: c.status,
      version: c.version,
      pendingDraft: c.draft !== null && c.version !== null,
      trigger: triggerLabel(d.trigger),
      priority: d.priority,
      stacking: d.stacking,
      budgetPoints: d.limits.budgetPoints ?? null,
      budgetUsed: c.budgetUsed,
    };
  });
}

/**
 * What the builder offers: the declared event types, the program's coupon pools, its tiers' names, its declared
 * customer attributes and its segments (for `customer.segment`).
 */
export async function campaignBuilderOptions(db: Db, programId: string) {
  const [eventTypes, pools, tiers, customerAttributes, segments] = await Promise.all([
    listEventTypes(db, programId),
    db.couponPool.findMany({ where: { programId }, orderBy: { name: "asc" }, select: { id: true, name: true } }),
    db.tier.findMany({ where: { programId }, orderBy: { requiredPoints: "asc" }, select: { name: true } }),
    customerAttributeTypes(db, programId),
    listSegments(db, programId),
  ]);
  return {
    eventTypes,
    pools,
    tierNames: tiers.map((t) => t.name),
    customerAttributes,
    segments: segments.map((s) => ({ id: s.id, name: s.name })),
  };
}
export type CampaignBuilderOptions = Awaited<ReturnType<typeof campaignBuilderOptions>>;

/** One day of a campaign's figures, in the program's time zone. */
export interface CampaignDay {
  day: string;
  events: number;
  points: number;
}

export interface CampaignFigures {
  /** Events the campaign applied to (it gave points or a coupon), ever. */
  eventsMatched: number;
  /** Points its effects gave, ever (reversals are not subtracted: the budget used is). */
  pointsIssued: number;
  /** Events its trigger matched but it did not apply to, by reason. */
  skipped: { reason: SkipReason; count: number }[];
  /** The last 30 days, one row per day (zeros included). */
  days: CampaignDay[];
}

const CHART_DAYS = 30;

/**
 * The campaign's figures from the event log: the events of its trigger types (served by the (programId, type,
 * occurredAt) index) whose outcome names it. Dry runs are not in the log.
 */
export async function campaignFigures(
  db: Db,
  programId: string,
  campaignId: string,
  types: string[],
  today: Date,
): Promise<CampaignFigures> {
  const [totals, skipped, days] = await Promise.all([
    query<{ events: number; points: number }>(
      db,
      sql`SELECT count(DISTINCT ev.id)::int AS events, coalesce(sum((e->>'points')::bigint), 0)::float8 AS points
        FROM "CustomerEvent" ev CROSS JOIN LATERAL jsonb_array_elements(ev.outcome->'effects') e
        WHERE ev."programId" = ${programId}::uuid AND ev.type = ANY(${types}::text[]) AND e->>'campaignId' = ${campaignId}`,
    ),
    query<{ reason: SkipReason; count: number }>(
      db,
      sql`SELECT s->>'reason' AS reason, count(*)::int AS count
        FROM "CustomerEvent" ev CROSS JOIN LATERAL jsonb_array_elements(ev.outcome->'skipped') s
        WHERE ev."programId" = ${programId}::uuid AND ev.type = ANY(${types}::text[]) AND s->>'campaignId' = ${campaignId}
        GROUP BY 1 ORDER BY 2 DESC, 1`,
    ),
    query<CampaignDay>(
      db,
      sql`WITH b AS (
          SELECT p."timeZone" AS tz, (${today.toISOString()}::timestamptz AT TIME ZONE p."timeZone")::date AS last
          FROM "Program" p WHERE p.id = ${programId}::uuid),
        d AS (SELECT (ev."occurredAt" AT TIME ZONE b.tz)::date AS day, count(DISTINCT ev.id)::int AS events,
                     coalesce(sum((e->>'points')::bigint), 0)::float8 AS points
          FROM b, "CustomerEvent" ev CROSS JOIN LATERAL jsonb_array_elements(ev.outcome->'effects') e
          WHERE ev."programId" = ${programId}::uuid AND ev.type = ANY(${types}::text[]) AND e->>'campaignId' = ${campaignId}
            AND ev."occurredAt" >= ((b.last - ${CHART_DAYS - 1}::int)::timestamp AT TIME ZONE b.tz)
            AND ev."occurredAt" < ((b.last + 1)::timestamp AT TIME ZONE b.tz)
          GROUP BY 1)
        SELECT to_char(g.day::date, 'YYYY-MM-DD') AS day, coalesce(d.events, 0)::int AS events, coalesce(d.points, 0)::float8 AS points
        FROM b, generate_series(b.last - ${CHART_DAYS - 1}::int, b.last, interval '1 day') AS g(day)
          LEFT JOIN d ON d.day = g.day::date
        ORDER BY g.day`,
    ),
  ]);
  return {
    eventsMatched: totals[0]?.events ?? 0,
    pointsIssued: Number(totals[0]?.points ?? 0),
    skipped,
    days: days.map((d) => ({ day: d.day, events: Number(d.events), points: Number(d.points) })),
  };
}

/**
 * The campaign page: the campaign with its versions, its figures, what the builder and "try it" need, and every
 * campaign's name (the try-it answer names them). Null when the program has no such campaign.
 */
export async function campaignPage(db: Db, programId: string, campaignId: string, today: Date) {
  const campaign = await getCampaign(db, programId, campaignId).catch((err: unknown) => {
    if (err instanceof AppError && err.code === "not_found") return null;
    throw err;
  });
  if (!campaign) return null;
  const types = [
    ...new Set(
      [
        ...(campaign.versions ?? []).map((v) => v.definition.trigger),
        ...(campaign.draft ? [campaign.draft.trigger] : []),
      ].flatMap((t) => (isLifecycle(t) ? [] : [t.event])),
    ),
  ];
  const [figures, options, all] = await Promise.all([
    campaignFigures(db, programId, campaign.id, types, today),
    campaignBuilderOptions(db, programId),
    db.campaign.findMany({ where: { programId }, select: { id: true, name: true } }),
  ]);
  return { campaign, figures, options, names: Object.fromEntries(all.map((c) => [c.id, c.name])) };
}

export type { EventTypeView };
