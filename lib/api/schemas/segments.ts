import { z } from "zod";
import { CUSTOMER_ATTRIBUTE_TYPES } from "@/lib/domain/campaigns/definition";
import { Id, Timestamp } from "./common";

/**
 * Declared customer attributes and segments (API.md "Customer attributes", "Segments"). A filter's shape (a tree of
 * all / any / not and leaves) is checked by lib/domain/segments/filter.ts against the program's declarations, every
 * problem by path (`filter.all[1].attr`), so here it is any JSON object.
 */

export const CustomerAttributeName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
    "must be a name of letters, digits and _ (at most 64), not starting with a digit",
  )
  .meta({ examples: ["favouriteStore"] });

export const CustomerAttributeDeclaration = z
  .strictObject({ type: z.enum(CUSTOMER_ATTRIBUTE_TYPES) })
  .meta({ id: "CustomerAttributeDeclaration", examples: [{ type: "string" }] });

export const CustomerAttribute = z
  .object({
    name: z.string(),
    type: z.enum(CUSTOMER_ATTRIBUTE_TYPES),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "CustomerAttribute" });
export const CustomerAttributeList = z
  .object({ data: z.array(CustomerAttribute) })
  .meta({ id: "CustomerAttributeList" });

const Filter = z
  .record(z.string(), z.unknown())
  .describe(
    "A condition tree: `{all: [...]}`, `{any: [...]}`, `{not: ...}` or a leaf `{attr, op, value, window?}` over `customer.<field>` (tier, balance, memberDays, language, utmSource, utmMedium, utmCampaign, birthdate, lastActivityAt, or a declared customer attribute) and `events.<type>.count`, `events.<type>.sum.<number attribute>`, `events.<type>.lastAt` with an optional `window` (ISO 8601 duration, e.g. P90D).",
  )
  .meta({
    examples: [
      {
        all: [
          { attr: "customer.tier", op: "eq", value: "Gold" },
          { attr: "events.purchase.count", window: "P90D", op: "eq", value: 0 },
        ],
      },
    ],
  });

const SegmentName = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");

export const SegmentRequest = z
  .strictObject({
    name: SegmentName,
    filter: Filter,
    emitEvents: z
      .boolean()
      .optional()
      .describe("Send `segment.entered` and `segment.left` webhooks when customers enter or leave it (default false)."),
  })
  .meta({ id: "SegmentRequest" });

export const SegmentPreviewRequest = z.strictObject({ filter: Filter }).meta({ id: "SegmentPreviewRequest" });

export const SegmentMember = z.object({ customerId: Id, email: z.string() }).meta({ id: "SegmentMember" });

export const SegmentPreview = z
  .object({
    count: z.number().int().describe("How many customers the filter selects now."),
    sample: z.array(SegmentMember).describe("The first 20 of them, by customer id."),
  })
  .meta({ id: "SegmentPreview" });

export const Segment = z
  .object({
    id: Id,
    name: z.string(),
    filter: z.record(z.string(), z.unknown()),
    emitEvents: z.boolean(),
    recomputedAt: Timestamp.nullable().describe("The program-clock instant of the last membership recompute."),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Segment" });
export const SegmentList = z.object({ data: z.array(Segment) }).meta({ id: "SegmentList" });

export const SegmentMembersQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,4}$/, "must be an integer from 1 to 1000")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be at least 1").max(1000, "must be at most 1000"))
    .default(100),
  cursor: z.string().max(512).optional(),
  updatedSince: z.iso.datetime({ offset: true }).optional(),
});

export const SegmentMemberPage = z
  .object({
    data: z.array(SegmentMember),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: "SegmentMemberPage" });

export const SegmentChangePage = z
  .object({
    data: z.array(
      z.object({
        customerId: Id,
        email: z.string().nullable(),
        member: z.boolean().describe("true: entered (is in); false: left."),
        changedAt: Timestamp,
      }),
    ),
    recomputedAt: Timestamp.nullable(),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: "SegmentChangePage" });

export const SegmentMembersAnswer = z
  .union([SegmentMemberPage, SegmentChangePage])
  .meta({ id: "SegmentMembersAnswer" });

export const CustomerSegments = z
  .object({ data: z.array(z.object({ id: Id, name: z.string() })) })
  .meta({ id: "CustomerSegments" });
