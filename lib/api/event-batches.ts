import "server-only";
import type { HotDb } from "@/lib/db/types";
import type { Outcome, OutcomeSlot } from "@/lib/db/keyed-statement";
import { config } from "@/lib/config";
import { recordBatchedEvents } from "@/lib/ops/metrics";
import { log } from "@/lib/ops/logger";
import { isDatabaseUnavailable } from "@/lib/db/outage";
import { uniqueViolation } from "@/lib/errors";
import { batchable, writeEventBatch, type BatchedEvent } from "@/lib/domain/campaigns/event-batch";
import type { EventPlan } from "@/lib/domain/campaigns/event-write";

/**
 * Keyed customer events that arrive while the process already has EVENT_STATEMENTS_IN_FLIGHT of their statements
 * running wait, and the next to go writes all that waited (of one program, one per customer) in one statement
 * (lib/domain/campaigns/event-batch.ts). A quiet server never waits: an event finds a free slot and runs its own
 * statement at once. A busy one pays a statement's fixed cost once per batch instead of once per event; the wait is
 * at most the time a statement in flight takes to finish.
 */

const MAX_BATCH = 32;

interface Waiting extends BatchedEvent {
  single: () => Promise<Outcome | null>;
  resolve: (outcome: Outcome | null) => void;
  reject: (err: unknown) => void;
}

let inFlight = 0;
const waiting: Waiting[] = [];

/**
 * An event's statement: its own (`single`, the keyed statement of its shape), or, when it must wait for a slot, its
 * place in the next batch. Null as `single` answers it: the locked path's work.
 */
export function writeEvent(
  database: HotDb,
  slot: OutcomeSlot | null,
  plan: EventPlan,
  single: () => Promise<Outcome | null>,
): Promise<Outcome | null> {
  const limit = config().EVENT_STATEMENTS_IN_FLIGHT;
  // PGlite runs one statement at a time: there is nothing to share (and `raw` is Prisma there, not the pool).
  if (limit === 0 || database.raw === database.prisma || !batchable(slot, plan)) return single();
  if (inFlight < limit) return fly(() => single());
  return new Promise((resolve, reject) => waiting.push({ slot, plan, single, resolve, reject }));

  async function fly<T>(run: () => Promise<T>): Promise<T> {
    inFlight++;
    try {
      return await run();
    } finally {
      inFlight--;
      drain(database);
    }
  }
}

/** Sends what waited, while slots are free: one program's events, one per customer, up to MAX_BATCH at a time. */
function drain(database: HotDb) {
  while (waiting.length > 0 && inFlight < config().EVENT_STATEMENTS_IN_FLIGHT) {
    const programId = waiting[0]!.slot.programId;
    const customers = new Set<string>();
    const batch: Waiting[] = [];
    for (let i = 0; i < waiting.length && batch.length < MAX_BATCH;) {
      const w = waiting[i]!;
      const customer = w.plan.named.customerId;
      if (w.slot.programId !== programId || customers.has(customer)) {
        i++;
        continue;
      }
      customers.add(customer);
      batch.push(w);
      waiting.splice(i, 1);
    }
    // In customer order, as every batch locks its balance rows: two batches never wait on each other in a circle.
    batch.sort((a, b) => (a.plan.named.customerId < b.plan.named.customerId ? -1 : 1));
    inFlight++;
    void send(database, programId, batch)
      // `send` settles every event it was given; should it ever throw, none of them is left waiting.
      .catch((err: unknown) => batch.forEach((w) => w.reject(err)))
      .finally(() => {
        inFlight--;
        drain(database);
      });
  }
}

async function send(database: HotDb, programId: string, batch: Waiting[]) {
  const alone = (w: Waiting) => w.single().then(w.resolve, w.reject);
  if (batch.length === 1) return alone(batch[0]!);
  let bodies: (string | null)[] | null;
  try {
    bodies = await writeEventBatch(database.raw, programId, batch);
  } catch (err) {
    // A twin's key committed first, a lost connection: each event's own statement settles it (and a batch that did
    // commit before its connection was lost is found there by its keys: replayed). Anything else is a fault of the
    // batch's statement, worth a line in the log: its events still go through, one by one.
    if (!uniqueViolation(err) && !isDatabaseUnavailable(err))
      log().warn({ error: (err as Error).message, events: batch.length }, "event batch failed");
    bodies = null;
  }
  recordBatchedEvents(bodies ? "written" : "alone", batch.length);
  if (!bodies) return Promise.all(batch.map(alone));
  return Promise.all(
    batch.map((w, i) => {
      const body = bodies[i];
      // Written with the batch: its own statement would find its key's record and replay it.
      return body == null ? alone(w) : w.resolve({ status: 200, body, replayed: false });
    }),
  );
}
