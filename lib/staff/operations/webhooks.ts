import "server-only";
import type { Tx } from "@/lib/db/types";
import { requireRow } from "@/lib/db/require-row";
import { conflict, notFound } from "@/lib/errors";
import {
  createWebhook,
  resendDelivery,
  rotateWebhookSecret,
  sendTestEvent,
  setPushEndpoint,
  setWebhookSubscriptions,
} from "@/lib/domain/webhooks";
import { audited, auditedUpdate } from "../audit";
import { nextVersion, requireVersion } from "../versions";
import { staffOperation } from "../authz";
import type {
  PushEndpointForm,
  WebhookForm,
  WebhookRotation,
  WebhookSubscriptions,
  WebhookUpdate,
} from "../forms/webhooks";

/**
 * The staff writes on where the program's events go: webhooks, the push endpoint, re-sending a delivery
 * (`program.manage`). Signing secrets are returned once and never audited; URLs are audited without credentials.
 */

/** A URL as the audit log keeps it: without user name and password, should one be embedded in it. */
function auditUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return parsed.toString();
    parsed.username = parsed.password ? "redacted" : "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return null;
  }
}

const pushEndpointOf = (tx: Tx, programId: string) =>
  tx.program.findUniqueOrThrow({ where: { id: programId }, select: { pushEndpointUrl: true } });

export const createWebhookAsStaff = staffOperation("program.manage", async (tx, staff, input: WebhookForm) => {
  const { webhookId, secret } = await createWebhook(tx, {
    programId: staff.programId,
    url: input.url,
    eventTypes: input.eventTypes,
  });
  const webhook = await tx.webhook.findUniqueOrThrow({
    where: { id: webhookId },
    select: { id: true, url: true, active: true, createdAt: true, eventTypes: true },
  });
  // The signing secret is returned to the caller once and never written to the audit log.
  await audited(tx, staff, "webhook.create", { type: "webhook", id: webhookId }, null, {
    url: auditUrl(webhook.url),
    active: webhook.active,
    eventTypes: webhook.eventTypes,
  });
  return { ...webhook, secret };
});

export const setWebhookActiveAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, webhookId: string, input: WebhookUpdate, version?: string) => {
    await requireVersion(tx, staff, "webhook", webhookId, version);
    const webhook = await requireRow(
      webhookId,
      (id) =>
        tx.webhook.findFirst({
          where: { id, programId: staff.programId },
          select: { id: true, url: true, active: true },
        }),
      () => notFound("webhook"),
    );
    if (webhook.active === input.active)
      throw conflict(`The webhook is already ${input.active ? "active" : "disabled"}.`);
    await tx.webhook.update({ where: { id: webhookId }, data: { active: input.active } });
    await audited(
      tx,
      staff,
      "webhook.update",
      { type: "webhook", id: webhookId },
      { url: auditUrl(webhook.url), active: webhook.active },
      { active: input.active },
    );
    return { id: webhookId, active: input.active, version: await nextVersion(tx, staff, "webhook", webhookId) };
  },
);

/** The webhook of the staff member's program, or 404, with what the audit log shows of it. */
const webhookOf = (tx: Tx, programId: string, webhookId: string) =>
  requireRow(
    webhookId,
    (id) =>
      tx.webhook.findFirst({
        where: { id, programId },
        select: { id: true, url: true, active: true, eventTypes: true },
      }),
    () => notFound("webhook"),
  );

/** Which event types the endpoint receives; an empty list means all of them. */
export const setWebhookSubscriptionsAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, webhookId: string, input: WebhookSubscriptions, version?: string) => {
    await requireVersion(tx, staff, "webhook", webhookId, version);
    const before = await webhookOf(tx, staff.programId, webhookId);
    const after = await setWebhookSubscriptions(tx, staff.programId, webhookId, input.eventTypes);
    await audited(
      tx,
      staff,
      "webhook.subscriptions",
      { type: "webhook", id: webhookId },
      { url: auditUrl(before.url), eventTypes: before.eventTypes },
      { eventTypes: after.eventTypes },
    );
    return { ...after, version: await nextVersion(tx, staff, "webhook", webhookId) };
  },
);

/** A new signing secret, returned once and never audited; the old one stays valid for `overlapHours`. */
export const rotateWebhookSecretAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, webhookId: string, input: WebhookRotation) => {
    const webhook = await webhookOf(tx, staff.programId, webhookId);
    const rotated = await rotateWebhookSecret(tx, staff.programId, webhookId, input.overlapHours);
    await audited(tx, staff, "webhook.rotate_secret", { type: "webhook", id: webhookId }, null, {
      url: auditUrl(webhook.url),
      previousSecretValidUntil: rotated.previousSecretExpiresAt,
    });
    return rotated;
  },
);

/** Queues a signed `webhook.test` event for this one endpoint; 202 with the delivery to watch. */
export const sendTestEventAsStaff = staffOperation("program.manage", async (tx, staff, webhookId: string) => {
  const webhook = await webhookOf(tx, staff.programId, webhookId);
  const queued = await sendTestEvent(tx, staff.programId, webhookId);
  await audited(tx, staff, "webhook.test", { type: "webhook", id: webhookId }, null, {
    url: auditUrl(webhook.url),
    deliveryId: queued.deliveryId,
  });
  return { ...queued, status: "pending" as const };
});

export const setPushEndpointAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, input: PushEndpointForm, version?: string) => {
    // A new signing secret comes with every new URL: returned once, never audited.
    const {
      after,
      result,
      version: next,
    } = await auditedUpdate(
      tx,
      staff,
      "push.set",
      { type: "program", id: staff.programId },
      {
        read: () => pushEndpointOf(tx, staff.programId),
        change: () => setPushEndpoint(tx, { programId: staff.programId, url: input.url }),
        shown: (program) => ({ url: auditUrl(program.pushEndpointUrl) }),
        version: { of: "program", expected: version },
      },
    );
    return { url: after.pushEndpointUrl, secret: result.secret, version: next };
  },
);

export const resendDeliveryAsStaff = staffOperation("program.manage", async (tx, staff, deliveryId: string) => {
  const delivery = await requireRow(
    deliveryId,
    (id) =>
      tx.delivery.findFirst({
        where: { id, programId: staff.programId },
        select: {
          id: true,
          kind: true,
          status: true,
          attempts: true,
          lastStatusCode: true,
          webhook: { select: { active: true } },
        },
      }),
    () => notFound("delivery"),
  );
  // The worker would only cancel it: say so now rather than queue it.
  const configured =
    delivery.kind === "webhook"
      ? !!delivery.webhook?.active
      : !!(await pushEndpointOf(tx, staff.programId)).pushEndpointUrl;
  if (!configured) {
    throw conflict(
      delivery.kind === "webhook"
        ? "The webhook of this delivery is disabled: enable it first."
        : "The program has no push endpoint: set one first.",
    );
  }
  await resendDelivery(tx, staff.programId, deliveryId);
  await audited(
    tx,
    staff,
    "delivery.resend",
    { type: "delivery", id: deliveryId },
    { status: delivery.status, attempts: delivery.attempts, lastStatusCode: delivery.lastStatusCode },
    { status: "pending" },
  );
  return { id: deliveryId, status: "pending" as const };
});
