import type { OperationSpec } from "@/lib/api/openapi/operation";
import { programId, segmentId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "listSegmentMembers",
  summary: "Segment members",
  description:
    "Without `updatedSince`: the customers the segment's filter selects at the program clock's now, by customer id, a page at a time (the query the preview counts). With `updatedSince`: the changes of membership the recomputes recorded after that instant, in (changedAt, customerId) order — `member: true` entered, `false` left — for incremental sync to a CRM; `recomputedAt` says how current they are. Follow `nextCursor` until it is null.",
  tag: "Segments",
  parameters: [
    programId,
    segmentId,
    {
      name: "limit",
      in: "query",
      required: false,
      description: "Members per page, 1 to 1000 (default 100).",
      schema: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
    },
    {
      name: "cursor",
      in: "query",
      required: false,
      description: "`nextCursor` of the previous page.",
      schema: { type: "string" },
    },
    {
      name: "updatedSince",
      in: "query",
      required: false,
      description: "An ISO 8601 instant: list the changes after it instead of the members.",
      schema: { type: "string", format: "date-time" },
    },
  ],
  success: {
    status: 200,
    description: "A page of members (SegmentMemberPage) or of changes (SegmentChangePage, with updatedSince).",
    schema: "SegmentMembersAnswer",
  },
  errors: [...INTEGRATOR_ERRORS, ["validation_failed", "an invalid limit, cursor or updatedSince"]],
};
