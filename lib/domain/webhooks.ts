import "server-only";
import { createHmac, randomBytes } from "node:crypto";
import type { Db, Tx } from "@/lib/db/types";
import { isoSql } from "@/lib/db/types";
import { conflict, notFound } from "@/lib/errors";
import { requireProgram } from "./programs";
import { realTime, realTimeMs } from "./real-time";
import { checkDeliveryUrl } from "@/lib/net/delivery-target";
import { TEST_EVENT_TYPE, type EventType } from "./vocabulary";

/**
 * The one place for where a program's events go and how they are signed: webhooks (their subscriptions and
 * secrets), the push endpoint, a test event, re-sending a delivery, and the exact body a webhook delivery carries.
 * The outbox worker (lib/jobs/outbox.ts) plans and sends the deliveries.
 */

const newSecret = () => `whsec_${randomBytes(24).toString("hex")}`;

/** The headers a delivery is signed and identified with (lib/jobs/outbox.ts sends them; the OpenAPI webhooks declare them). */
export const SIGNATURE_HEADER = "loyalty-signature";
export const DELIVERY_HEADER = "loyalty-delivery";

/**
 * `loyalty-signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: receivers recompute and compare.
 * During a secret rotation's overlap window the header carries one `v1=` per valid secret, newest first (as
 * Stripe does), so a receiver that still has the old secret and one that has the new both find a match.
 */
export function signature(secrets: string | readonly string[], body: string, at = realTime()): string {
  const t = Math.floor(at.getTime() / 1000);
  const list = typeof secrets === "string" ? [secrets] : secrets;
  const v1 = list.map((secret) => `v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`);
  return [`t=${t}`, ...v1].join(",");
}

/**
 * The JSON text a webhook delivery sends for its event, built by the database in one expression (`e` is the
 * "Event" row; `livemode` is false for a test program's events): the outbox signs and posts exactly this text, and the
 * dashboard shows exactly this text. `sequence` is the row's (migration cors_origins_event_sequence): deliveries are
 * unordered (API.md §5), and a receiver orders a customer's events by it.
 */
export const EVENT_BODY_SQL = `json_build_object('id', e.id, 'type', e.type, 'programId', e."programId",
  'livemode', NOT (SELECT lp.test FROM "Program" lp WHERE lp.id = e."programId"),
  'createdAt', ${isoSql('e."createdAt"')}, 'sequence', e.sequence, 'data', e.data)::text`;

/** A webhook of the program, or 404 (another program's webhook is answered the same as a missing one). */
async function requireWebhook(db: Db, programId: string, webhookId: string) {
  const webhook = await db.webhook.findFirst({
    where: { id: webhookId, programId },
    select: { id: true, url: true, active: true, eventTypes: true },
  });
  if (!webhook) throw notFound("webhook");
  return webhook;
}

/** Unique, in the vocabulary's order, so that the same choice is always stored (and audited) the same way. */
const normalised = (eventTypes: readonly EventType[]) => [...new Set(eventTypes)].sort();

/** A new endpoint; `eventTypes` empty (the default) subscribes it to every event type, present and future. */
export async function createWebhook(db: Db, input: { programId: string; url: string; eventTypes?: EventType[] }) {
  await requireProgram(db, input.programId);
  const url = await checkDeliveryUrl(input.url, "url");
  const secret = newSecret();
  const webhook = await db.webhook.create({
    data: { programId: input.programId, url, secret, eventTypes: normalised(input.eventTypes ?? []) },
    select: { id: true },
  });
  return { webhookId: webhook.id, secret };
}

/** Which event types the endpoint receives from now on (events already planned for it are still sent). */
export async function setWebhookSubscriptions(db: Db, programId: string, webhookId: string, eventTypes: EventType[]) {
  await requireWebhook(db, programId, webhookId);
  const updated = await db.webhook.update({
    where: { id: webhookId },
    data: { eventTypes: normalised(eventTypes) },
    select: { id: true, eventTypes: true },
  });
  return updated;
}

/**
 * Replaces the signing secret. The old one stays valid for `overlapHours` (deliveries carry a signature with each),
 * so receivers can switch without losing a delivery; with 0 it stops at once. A second rotation inside the window
 * ends the first one's: only the secret being replaced is kept.
 */
export async function rotateWebhookSecret(db: Db, programId: string, webhookId: string, overlapHours: number) {
  await requireWebhook(db, programId, webhookId);
  const secret = newSecret();
  const previousSecretExpiresAt = overlapHours > 0 ? new Date(realTimeMs() + overlapHours * 3_600_000) : null;
  await db.$executeRawUnsafe(ROTATE_SQL, webhookId, programId, secret, previousSecretExpiresAt);
  return { webhookId, secret, previousSecretExpiresAt };
}

/**
 * SQL so that the swap is one statement: the right-hand `secret` is the row's old value, so two rotations at once
 * cannot both keep the same old secret. $1 webhook, $2 program, $3 new secret, $4 end of the overlap (null: none).
 */
const ROTATE_SQL = `UPDATE "Webhook"
  SET "previousSecret" = CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE secret END,
      "previousSecretExpiresAt" = $4::timestamptz, secret = $3
  WHERE id = $1::uuid AND "programId" = $2::uuid`;

/**
 * Queues a `webhook.test` event for this one endpoint: the event is written already planned (fannedOutAt set, so
 * no other webhook receives it) with its one delivery, which the outbox then signs and sends like any other.
 */
export async function sendTestEvent(tx: Tx, programId: string, webhookId: string) {
  const webhook = await requireWebhook(tx, programId, webhookId);
  if (!webhook.active) throw conflict("The webhook is disabled: enable it first.");
  const event = await tx.event.create({
    data: {
      programId,
      type: TEST_EVENT_TYPE,
      data: { webhookId, message: "A test event sent from the dashboard." },
      fannedOutAt: realTime(),
    },
    select: { id: true },
  });
  const delivery = await tx.delivery.create({
    data: { programId, kind: "webhook", eventId: event.id, webhookId, url: webhook.url },
    select: { id: true },
  });
  return { eventId: event.id, deliveryId: delivery.id };
}

export async function setPushEndpoint(db: Db, input: { programId: string; url: string | null }) {
  await requireProgram(db, input.programId);
  const url = input.url ? await checkDeliveryUrl(input.url, "url") : null;
  const pushSecret = url ? newSecret() : null;
  await db.program.update({ where: { id: input.programId }, data: { pushEndpointUrl: url, pushSecret } });
  return { programId: input.programId, url, secret: pushSecret };
}

/** Puts a delivery back in the queue for an immediate attempt (from the dashboard's delivery log). */
export async function resendDelivery(db: Db, programId: string, deliveryId: string) {
  const updated = await db.delivery.updateMany({
    where: { id: deliveryId, programId },
    data: { status: "pending", nextAttemptAt: realTime(), createdAt: realTime(), lastError: null },
  });
  if (updated.count === 0) throw notFound("delivery");
  return { deliveryId };
}
