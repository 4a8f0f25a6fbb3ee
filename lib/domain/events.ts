import "server-only";
import type { Tx } from "@/lib/db/types";

import type { EventType } from "./vocabulary";

/**
 * Writes events in the caller's transaction (the transactional outbox): an event exists exactly when the
 * change it describes committed. The outbox worker (lib/jobs/outbox.ts) delivers them.
 */
export async function emitEvents(
  tx: Tx,
  programId: string,
  events: { type: EventType; data: Record<string, unknown> }[],
) {
  if (events.length === 0) return;
  await tx.event.createMany({ data: events.map((e) => ({ programId, type: e.type, data: e.data as object })) });
}

export const emitEvent = (tx: Tx, programId: string, type: EventType, data: Record<string, unknown>) =>
  emitEvents(tx, programId, [{ type, data }]);
