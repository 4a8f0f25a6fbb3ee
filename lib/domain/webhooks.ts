import "server-only";
import { createHmac, randomBytes } from "node:crypto";
import type { Db } from "@/lib/db/types";
import { notFound } from "@/lib/errors";
import { requireProgram } from "./programs";
import { checkDeliveryUrl } from "@/lib/net/delivery-target";

const newSecret = () => `whsec_${randomBytes(24).toString("hex")}`;

/** The headers a delivery is signed and identified with (lib/jobs/outbox.ts sends them; the OpenAPI webhooks declare them). */
export const SIGNATURE_HEADER = "loyalty-signature";
export const DELIVERY_HEADER = "loyalty-delivery";

/** `loyalty-signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: receivers recompute and compare. */
export function signature(secret: string, body: string, at = new Date()): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return `t=${t},v1=${v1}`;
}

export async function createWebhook(db: Db, input: { programId: string; url: string }) {
  await requireProgram(db, input.programId);
  const url = await checkDeliveryUrl(input.url, "url");
  const secret = newSecret();
  const webhook = await db.webhook.create({ data: { programId: input.programId, url, secret }, select: { id: true } });
  return { webhookId: webhook.id, secret };
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
    data: { status: "pending", nextAttemptAt: new Date(), createdAt: new Date(), lastError: null },
  });
  if (updated.count === 0) throw notFound("delivery");
  return { deliveryId };
}
