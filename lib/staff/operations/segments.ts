import "server-only";
import { programNow } from "@/lib/domain/clock";
import {
  createSegment,
  deleteSegment,
  getSegment,
  previewSegment,
  updateSegment,
  type SegmentView,
} from "@/lib/domain/segments/store";
import { audited, auditedUpdate } from "../audit";
import { staffOperation } from "../authz";
import { requireVersion } from "../versions";
import type { SegmentForm, SegmentPreviewForm } from "../forms/segments";

/**
 * The staff side of segments (API.md "Segments"; managers and owners write): create, change (from the version the
 * page showed: If-Match), delete — each through the domain function /v1 calls, audited in the same transaction —
 * and the builder's live count, which stores nothing and so is not audited (it shows customers: `customers.read`).
 */

/** What the audit log keeps of a segment: its definition (small), never its members. */
const shown = (s: SegmentView) => ({ name: s.name, filter: s.filter, emitEvents: s.emitEvents });

export const createSegmentAsStaff = staffOperation("program.manage", async (tx, staff, input: SegmentForm) => {
  const segment = await createSegment(tx, {
    programId: staff.programId,
    name: input.name,
    filter: input.filter,
    emitEvents: input.emitEvents ?? false,
    now: programNow(staff.programId),
  });
  await audited(tx, staff, "segment.create", { type: "segment", id: segment.id }, null, shown(segment));
  return segment;
});

/** Replaces the segment's name, filter and emitEvents; a new filter moves customers in or out at once. */
export const updateSegmentAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, segmentId: string, input: SegmentForm, version?: string) => {
    const { after, version: next } = await auditedUpdate(
      tx,
      staff,
      "segment.update",
      { type: "segment", id: segmentId },
      {
        read: () => getSegment(tx, staff.programId, segmentId),
        change: () =>
          updateSegment(tx, {
            programId: staff.programId,
            segmentId,
            name: input.name,
            filter: input.filter,
            emitEvents: input.emitEvents ?? false,
            now: programNow(staff.programId),
          }),
        shown,
        version: { of: "segment", expected: version },
      },
    );
    return { ...after, version: next };
  },
);

/** Deletes the segment (from the version the page showed); campaigns that name it are refused at their next save. */
export const deleteSegmentAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, segmentId: string, version?: string) => {
    await requireVersion(tx, staff, "segment", segmentId, version);
    const before = await getSegment(tx, staff.programId, segmentId);
    await deleteSegment(tx, staff.programId, segmentId);
    await audited(tx, staff, "segment.delete", { type: "segment", id: segmentId }, shown(before), null);
    return { deleted: true };
  },
);

/** The count and first members of a filter now (the program clock's now); stores nothing. */
export const previewSegmentAsStaff = staffOperation("customers.read", async (tx, staff, input: SegmentPreviewForm) =>
  previewSegment(tx, staff.programId, input.filter, programNow(staff.programId)),
);
