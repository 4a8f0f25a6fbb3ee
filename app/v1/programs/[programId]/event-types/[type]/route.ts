import { apiRead, apiWrite, type PathParam } from "@/lib/api/route-factories";
import { EventTypeDeclaration, EventTypeName } from "@/lib/api/schemas/campaigns";
import { programNow } from "@/lib/domain/clock";
import { getEventType, putEventType } from "@/lib/domain/campaigns/store";
import { validationFailed } from "@/lib/errors";

const params: Record<string, PathParam> = {
  type: {
    schema: EventTypeName,
    orElse: () => validationFailed([{ path: "type", message: "must be 1 to 64 letters, digits, _, . or -" }]),
  },
};

/** One declared event type. 200. */
export const GET = apiRead({
  params,
  run: async (req, db) => ({ status: 200, json: await getEventType(db.prisma, req.programId, req.params.type!) }),
});

/** Declares an event type, or redeclares it (campaign versions keep what they were checked with). 200. */
export const PUT = apiWrite({
  params,
  body: EventTypeDeclaration,
  run: async (req, tx) => {
    const { eventType } = await putEventType(tx, {
      programId: req.programId,
      type: req.params.type!,
      attributes: req.body.attributes,
      now: programNow(req.programId),
    });
    return { status: 200, json: eventType };
  },
});
