import "server-only";
import type { Tx } from "@/lib/db/types";

import type { EventType } from "./vocabulary";

/**
 * Writes events in the caller's transaction (the transactional outbox): an event exists exactly when the
 * change it describes committed. The outbox worker (lib/jobs/outbox.ts) delivers them. `at` is when the change
 * happened, the business time of its operation (clock.ts), which every writer passes so that an operation's rows
 * and events share one time; webhooks carry it as the event's `createdAt`.
 */
export async function emitEvents(
  tx: Tx,
  programId: string,
  events: { type: EventType; data: Record<string, unknown> }[],
  at: Date,
) {
  if (events.length === 0) return;
  await tx.event.createMany({
    data: events.map((e) => ({ programId, type: e.type, data: e.data as object, createdAt: at })),
  });
}

export const emitEvent = (tx: Tx, programId: string, type: EventType, data: Record<string, unknown>, at: Date) =>
  emitEvents(tx, programId, [{ type, data }], at);
