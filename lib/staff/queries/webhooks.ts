import "server-only";
import { query, raw, sql } from "@/lib/db/sql";
import type { Db } from "@/lib/db/types";
import { EVENT_BODY_SQL } from "@/lib/domain/webhooks";
import { keysetPage, NEWEST_FIRST, olderThan } from "./keyset";

/** The dashboard's reads of where the program's events go: webhooks, the push endpoint, the delivery log. */

/** The webhooks page: the program's endpoints (never their secrets) and its push endpoint. */
export async function webhookSettings(db: Db, programId: string) {
  const [webhooks, program] = await Promise.all([
    db.webhook.findMany({
      where: { programId },
      orderBy: [...NEWEST_FIRST],
      select: {
        id: true,
        url: true,
        active: true,
        createdAt: true,
        eventTypes: true,
        previousSecretExpiresAt: true,
        updatedAt: true,
      },
    }),
    db.program.findUnique({ where: { id: programId }, select: { pushEndpointUrl: true, updatedAt: true } }),
  ]);
  const now = new Date();
  return {
    webhooks: webhooks.map(({ previousSecretExpiresAt, ...w }) => ({
      ...w,
      // Only while the overlap lasts: afterwards the old secret no longer signs anything.
      previousSecretValidUntil:
        previousSecretExpiresAt && previousSecretExpiresAt > now ? previousSecretExpiresAt : null,
    })),
    pushEndpointUrl: program?.pushEndpointUrl ?? null,
    /** The program's version: the push endpoint is a program setting (If-Match of its form). */
    programVersion: program?.updatedAt ?? null,
  };
}

/** What the delivery log shows of a delivery (its page and one delivery): status, attempts, last answer, times. */
const DELIVERY_FIELDS = {
  id: true,
  kind: true,
  url: true,
  status: true,
  attempts: true,
  lastStatusCode: true,
  lastError: true,
  nextAttemptAt: true,
  deliveredAt: true,
  createdAt: true,
  event: { select: { type: true } },
} as const;

/**
 * One page (newest first) of the program's webhook and push deliveries, optionally of one status; keyset cursor
 * on (createdAt, id), served by the (programId, createdAt) index.
 */
export async function deliveryPage(
  db: Db,
  programId: string,
  options: { status?: string; after?: string | null; take?: number },
) {
  const take = Math.min(Math.max(options.take ?? 25, 1), 100);
  const rows = await db.delivery.findMany({
    where: { programId, ...(options.status ? { status: options.status } : {}), ...olderThan(options.after) },
    orderBy: [...NEWEST_FIRST],
    take: take + 1,
    select: DELIVERY_FIELDS,
  });
  const page = keysetPage(rows, take);
  return {
    ...page,
    rows: page.rows.map(({ event, ...d }) => ({
      ...d,
      eventType: event?.type ?? (d.kind === "push" ? "notification" : "—"),
    })),
  };
}

/**
 * One delivery of the program with the exact JSON text it sends (the text its signature covers), or null (also for
 * another program's delivery). A webhook's body is built by the same SQL expression the outbox signs; a push
 * delivery's body is the notification, which the dashboard does not show here.
 */
export async function deliveryWithPayload(db: Db, programId: string, deliveryId: string) {
  const delivery = await db.delivery.findFirst({
    where: { id: deliveryId, programId },
    select: { ...DELIVERY_FIELDS, eventId: true },
  });
  if (!delivery) return null;
  const [row] = delivery.eventId
    ? await query<{ body: string }>(
        db,
        sql`SELECT ${raw(EVENT_BODY_SQL)} AS body FROM "Event" e WHERE e.id = ${delivery.eventId}::uuid`,
      )
    : [];
  return { ...delivery, eventType: delivery.event?.type ?? null, payload: row?.body ?? null };
}
