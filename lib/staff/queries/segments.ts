import "server-only";
import type { Db } from "@/lib/db/types";
import { AppError } from "@/lib/errors";
import { SEGMENT_ATTR, type Condition } from "@/lib/domain/campaigns/definition";
import { listEventTypes } from "@/lib/domain/campaigns/store";
import { customerAttributeTypes } from "@/lib/domain/customer-attributes";
import { CUSTOMER_FIELDS } from "@/lib/domain/segments/filter";
import { countedSegmentMembers, getSegment, listSegments, segmentsOfCustomer } from "@/lib/domain/segments/store";
import { versionOf } from "../versions";
import { allCampaigns, runningDefinitions } from "./campaigns";

/**
 * The segments pages' reads (API.md "Segments"): the list with each segment's members at its last recompute, what
 * the builder offers (customer fields, declared attributes, event types), one segment with its live count, a page
 * of its members and the campaigns that name it, and a customer's segments.
 */

/** A segment in the list. */
export interface SegmentRow {
  id: string;
  name: string;
  /** Members at the last recompute (SegmentMembership): cheap for a list; the segment's page counts live. */
  members: number;
  recomputedAt: string | null;
  emitEvents: boolean;
  updatedAt: string;
}

export async function segmentRows(db: Db, programId: string): Promise<SegmentRow[]> {
  const segments = await listSegments(db, programId);
  const counts = segments.length
    ? await db.segmentMembership.groupBy({
        by: ["segmentId"],
        where: { segmentId: { in: segments.map((s) => s.id) }, member: true },
        _count: { _all: true },
      })
    : [];
  const members = new Map(counts.map((c) => [c.segmentId, c._count._all]));
  return segments.map((s) => ({
    id: s.id,
    name: s.name,
    members: members.get(s.id) ?? 0,
    recomputedAt: s.recomputedAt,
    emitEvents: s.emitEvents,
    updatedAt: s.updatedAt,
  }));
}

/** What the segment builder offers: the customer's fields, the declared attributes, the event types, the tiers. */
export async function segmentBuilderOptions(db: Db, programId: string) {
  const [customerAttributes, eventTypes, tiers] = await Promise.all([
    customerAttributeTypes(db, programId),
    listEventTypes(db, programId),
    db.tier.findMany({ where: { programId }, orderBy: { requiredPoints: "asc" }, select: { name: true } }),
  ]);
  return {
    customerFields: CUSTOMER_FIELDS,
    customerAttributes,
    eventTypes: eventTypes.map((t) => ({ type: t.type, attributes: t.attributes })),
    tierNames: tiers.map((t) => t.name),
  };
}
export type SegmentBuilderOptions = Awaited<ReturnType<typeof segmentBuilderOptions>>;

/** Whether a condition tree has a `customer.segment` leaf naming any of `keys` (the segment's id or name). */
export function namesSegment(node: Condition | null | undefined, keys: readonly string[]): boolean {
  if (!node) return false;
  if ("not" in node) return namesSegment(node.not, keys);
  if ("all" in node) return node.all.some((c) => namesSegment(c, keys));
  if ("any" in node) return node.any.some((c) => namesSegment(c, keys));
  return node.attr === SEGMENT_ATTR && Array.isArray(node.value) && node.value.some((v) => keys.includes(v as string));
}

/** The campaigns whose running version or pending draft names the segment (by id or name) in a condition. */
export async function campaignsUsingSegment(db: Db, programId: string, segment: { id: string; name: string }) {
  const campaigns = await allCampaigns(db, programId);
  const running = await runningDefinitions(db, programId, campaigns);
  const keys = [segment.id, segment.name];
  return campaigns
    .filter((c) => [running.get(c.id), c.draft].some((d) => namesSegment(d?.conditions, keys)))
    .map((c) => ({ id: c.id, name: c.name, status: c.status }));
}

export const MEMBERS_PAGE_SIZE = 50;

/**
 * One segment's page: the segment and its version (the edit form's If-Match), its live count and one keyset page of
 * its members now (after `cursor`; one run of the filter), the campaigns naming it and the builder's options. Null when the program has
 * no such segment; a cursor that is not one of this list is a 400 from the domain.
 */
export async function segmentPage(db: Db, programId: string, segmentId: string, cursor: string | null, now: Date) {
  const segment = await getSegment(db, programId, segmentId).catch((err: unknown) => {
    if (err instanceof AppError && err.code === "not_found") return null;
    throw err;
  });
  if (!segment) return null;
  const [{ count, members }, campaigns, options] = await Promise.all([
    countedSegmentMembers(db, { programId, segment, cursor, limit: MEMBERS_PAGE_SIZE, now }),
    campaignsUsingSegment(db, programId, segment),
    segmentBuilderOptions(db, programId),
  ]);
  return {
    segment,
    version: versionOf(new Date(segment.updatedAt)),
    count,
    members,
    campaigns,
    options,
  };
}

/** The segments a customer is in now (the customer page's card). */
export const customerSegments = (db: Db, programId: string, customerId: string, now: Date) =>
  segmentsOfCustomer(db, programId, customerId, now);
