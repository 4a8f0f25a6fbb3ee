import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { execute, query, raw, sql } from "@/lib/db/sql";
import { isoSql } from "@/lib/db/types";
import type { DeliveryKind } from "@/lib/domain/vocabulary";
import { DELIVERY_HEADER, EVENT_BODY_SQL, signature, SIGNATURE_HEADER } from "@/lib/domain/webhooks";
import { postDelivery } from "@/lib/net/delivery-target";
import { realTime, realTimeMs } from "@/lib/domain/real-time";
import { config } from "@/lib/config";
import { log } from "@/lib/ops/logger";
import { attemptOutcome, retryDelayMs } from "@/lib/domain/delivery-retry-rules";

/**
 * The outbox worker: plans deliveries for new events, then sends due deliveries. Several instances may run
 * it at once: events and deliveries are claimed with FOR UPDATE SKIP LOCKED, and a claimed delivery is
 * leased (its nextAttemptAt pushed past the send timeout) before sending, so no two workers send it together.
 */

const SEND_TIMEOUT_MS = 10_000;
const LEASE_MS = 60_000;
/** OUTBOX_GIVE_UP_AFTER_MS is 24 h, shorter in tests. */
const retryPolicy = () => ({
  baseDelayMs: config().OUTBOX_BASE_DELAY_MS,
  giveUpAfterMs: config().OUTBOX_GIVE_UP_AFTER_MS,
});

/**
 * Creates one delivery per active webhook of the event's program that subscribes to the event's type (a webhook
 * with no event types subscribes to all), for events not yet planned.
 */
export async function fanOutEvents(prisma: PrismaClient, batch = 500): Promise<number> {
  return prisma.$transaction(async (tx) => {
    const events = await query<{ id: string }>(
      tx,
      sql`SELECT id FROM "Event" WHERE "fannedOutAt" IS NULL ORDER BY "createdAt", id LIMIT ${batch} FOR UPDATE SKIP LOCKED`,
    );
    if (events.length === 0) return 0;
    const ids = JSON.stringify(events.map((e) => e.id));
    await execute(
      tx,
      sql`INSERT INTO "Delivery" ("programId", kind, "eventId", "webhookId", url)
       SELECT e."programId", 'webhook', e.id, w.id, w.url
       FROM "Event" e JOIN "Webhook" w ON w."programId" = e."programId" AND w.active
         AND (cardinality(w."eventTypes") = 0 OR e.type = ANY (w."eventTypes"))
       WHERE e.id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::uuid)`,
    );
    await execute(
      tx,
      sql`UPDATE "Event" SET "fannedOutAt" = ${realTime().toISOString()}::timestamptz WHERE id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::uuid)`,
    );
    return events.length;
  });
}

interface Claimed {
  id: string;
  kind: DeliveryKind;
  /** Where the program sends this kind now: the webhook's URL while it is active, or the push endpoint; null when gone. */
  url: string | null;
  attempts: number;
  createdAt: Date;
  secret: string | null;
  /** The secret before the last rotation while its overlap window lasts: deliveries are signed with both. */
  previousSecret: string | null;
  body: string;
  notificationId: string | null;
}

/**
 * Claims and leases up to `batch` due deliveries, with the body and key to send them with. The URL is read from
 * the current configuration, not the one at planning time: a webhook moved or switched off, or a push endpoint
 * changed or removed, never receives what is still queued for its old address.
 */
async function claim(prisma: PrismaClient, batch: number): Promise<Claimed[]> {
  const now = realTime().toISOString();
  return query<Claimed>(
    prisma,
    sql`WITH due AS (
       SELECT id FROM "Delivery" WHERE status = 'pending' AND "nextAttemptAt" <= ${now}::timestamptz
       ORDER BY "nextAttemptAt" LIMIT ${batch} FOR UPDATE SKIP LOCKED
     ), leased AS (
       UPDATE "Delivery" d SET attempts = d.attempts + 1, "nextAttemptAt" = ${now}::timestamptz + make_interval(secs => ${LEASE_MS / 1000}::float8)
       FROM due WHERE d.id = due.id
       RETURNING d.*
     )
     SELECT l.id, l.kind, l.attempts, l."createdAt", l."notificationId",
            CASE WHEN l.kind = 'webhook' THEN (CASE WHEN w.active THEN w.url END) ELSE p."pushEndpointUrl" END AS url,
            CASE WHEN l.kind = 'webhook' THEN w.secret ELSE p."pushSecret" END AS secret,
            CASE WHEN l.kind = 'webhook' AND w."previousSecretExpiresAt" > ${now}::timestamptz THEN w."previousSecret" END
              AS "previousSecret",
            CASE WHEN l.kind = 'webhook' THEN ${raw(EVENT_BODY_SQL)}
            ELSE
              json_build_object('id', n.id, 'type', 'notification', 'programId', n."programId", 'livemode', NOT p.test,
                                'customerId', n."customerId",
                                'loyaltyCustomerId', ld."loyaltyCustomerId", 'title', n.title, 'body', n.body, 'category', n.category,
                                'data', n.data, 'createdAt', ${raw(isoSql('n."createdAt"'))})::text
            END AS body
     FROM leased l
       LEFT JOIN "Webhook" w ON w.id = l."webhookId"
       LEFT JOIN "Event" e ON e.id = l."eventId"
       LEFT JOIN "Notification" n ON n.id = l."notificationId"
       LEFT JOIN "LoyaltyData" ld ON ld."programId" = n."programId" AND ld."customerId" = n."customerId"
       LEFT JOIN "Program" p ON p.id = l."programId"`,
  );
}

/** Through lib/net/delivery-target.ts: the address is checked again right before connecting (DNS rebinding). */
async function send(
  d: Claimed & { url: string },
): Promise<{ ok: boolean; status: number | null; error: string | null }> {
  const headers = {
    "content-type": "application/json",
    "user-agent": "loyalty-webhooks/1",
    [SIGNATURE_HEADER]: signature(d.previousSecret ? [d.secret ?? "", d.previousSecret] : (d.secret ?? ""), d.body),
    [DELIVERY_HEADER]: d.id,
  };
  const outcome = await postDelivery(d.url, headers, d.body, SEND_TIMEOUT_MS);
  return { ok: outcome.error === null, ...outcome };
}

/** Sends due deliveries once; returns how many were attempted. */
export async function deliverDue(prisma: PrismaClient, batch = 50): Promise<{ attempted: number; delivered: number }> {
  const claimed = await claim(prisma, batch);
  let delivered = 0;
  await Promise.all(
    claimed.map(async (d) => {
      if (!d.url || !d.secret) return cancel(prisma, d);
      const result = await send({ ...d, url: d.url });
      const now = realTimeMs();
      const policy = retryPolicy();
      const status = attemptOutcome(result.ok, d.attempts, new Date(d.createdAt).getTime(), now, policy);
      if (result.ok) delivered++;
      else
        log().warn(
          {
            deliveryId: d.id,
            kind: d.kind,
            attempts: d.attempts,
            statusCode: result.status,
            error: result.error,
            status,
          },
          "delivery failed",
        );
      await prisma.delivery.update({
        where: { id: d.id },
        data: {
          status,
          url: d.url,
          lastStatusCode: result.status,
          lastError: result.error,
          deliveredAt: result.ok ? new Date(now) : null,
          nextAttemptAt: new Date(now + (status === "pending" ? retryDelayMs(d.attempts, policy) : 0)),
        },
      });
      if (d.notificationId && status !== "pending") {
        await prisma.notification.update({
          where: { id: d.notificationId },
          data: { status: result.ok ? "delivered" : "failed", deliveredAt: result.ok ? new Date(now) : null },
        });
      }
    }),
  );
  return { attempted: claimed.length, delivered };
}

/** The webhook was switched off or deleted, or the push endpoint removed: nothing is sent anywhere. */
async function cancel(prisma: PrismaClient, d: Claimed) {
  await prisma.delivery.update({
    where: { id: d.id },
    data: { status: "cancelled", lastError: "endpoint no longer configured" },
  });
  if (d.notificationId)
    await prisma.notification.update({ where: { id: d.notificationId }, data: { status: "failed" } });
}

/**
 * One pass: plans every new event, then sends due deliveries batch after batch while batches come back full,
 * for at most `budgetMs` (so a backlog drains quickly but a pass still ends).
 */
export async function runOutbox(prisma: PrismaClient, options: { batch?: number; budgetMs?: number } = {}) {
  const batch = options.batch ?? 50;
  const deadline = realTimeMs() + (options.budgetMs ?? 20_000);
  let planned = 0;
  for (let n = await fanOutEvents(prisma); n > 0; n = await fanOutEvents(prisma)) planned += n;
  let attempted = 0;
  let delivered = 0;
  for (;;) {
    const sent = await deliverDue(prisma, batch);
    attempted += sent.attempted;
    delivered += sent.delivered;
    if (sent.attempted < batch || realTimeMs() > deadline) break;
  }
  return { planned, attempted, delivered };
}
