import "server-only";
import { EVENT_TYPES, TEST_EVENT_TYPE, type EventType } from "@/lib/domain/vocabulary";
import { DELIVERY_HEADER, SIGNATURE_HEADER } from "@/lib/domain/webhooks";
import { eventSchemaId } from "../schemas/events";
import { EXAMPLE_IDS, type Examples } from "./examples";

/**
 * The document's `webhooks` (OpenAPI 3.1): one entry per event type the outbox sends (EVENT_TYPES), the dashboard's
 * test event, and the push endpoint's notification. Each is a POST of JSON signed with the endpoint's secret (lib/domain/webhooks.ts).
 */

const { programId, customerId, email, rewardId, at } = EXAMPLE_IDS;
const EVENT_ID = "0193a5b3-37e0-750d-92bb-f4e3d02b1ca9";

/**
 * Each event type's example `data` (one entry per EVENT_TYPES member, or the typecheck fails), shown in the document
 * and checked against the type's zod schema by test/unit/webhook-events.test.ts.
 */
export const DATA: Record<EventType, Record<string, unknown>> = {
  "customer.created": { customerId, email, changes: ["externalCustomerId", "firstName", "lastName"] },
  "customer.updated": { customerId, email: "jane@example.org", previousEmail: email, changes: ["email"] },
  "customer.deleted": { customerId },
  "balance.changed": {
    customerId,
    transactionId: "0193a5b2-bf60-7d85-9a99-7c6b5e4f3a21",
    type: "earn",
    points: 250,
    balance: 1250,
  },
  "tier.changed": {
    customerId,
    fromTierId: null,
    toTierId: "0193a5b2-8c30-7a52-8d66-4f3e2b1c0d9e",
    tierStatus: "earned",
  },
  "reward.redeemed": {
    customerId,
    rewardId,
    redemptionId: "0193a5b3-04b0-72da-8fee-c1b0ad9e8f76",
    code: "KQ7MZ-4HT2P",
    points: 500,
  },
  "coupon.assigned": { customerId, couponPoolId: "0193a5b2-ae50-7c74-8f88-6b5a4d3e2f10", code: "WELCOME-8F3K2" },
  "notification.requested": { customerId, notificationId: "0193a5b3-26d0-74fc-81aa-e3d2cf1a0b98", category: "balance" },
  "redemption.cancelled": {
    customerId,
    rewardId,
    redemptionId: "0193a5b3-04b0-72da-8fee-c1b0ad9e8f76",
    code: "KQ7MZ-4HT2P",
    points: 500,
    transactionId: "0193a5b3-6b20-7c3f-8d4e-2f3a4b5c6d7e",
    reason: "Order cancelled at the till",
    expiredPoints: 0,
  },
  "transaction.reversed": {
    customerId,
    transactionId: "0193a5b3-5a10-7b2e-84dd-16a5f24e3ecb",
    reversesId: "0193a5b2-bf60-7d85-9a99-7c6b5e4f3a21",
    orderId: "ORD-10042",
    requested: 250,
    points: 200,
    unrecovered: 50,
    tierPoints: 250,
    balance: 0,
  },
  "order.refunded": {
    orderId: "ORD-10042",
    refundId: "0193a5b3-6b30-7c4f-85ee-27b6035f4fdc",
    amount: 20,
    total: 80,
    refundedShare: 0.25,
    orderPoints: 800,
    pointsReversed: 200,
    totalReversed: 200,
    unrecovered: 0,
    pendingCancelled: 0,
    customerIds: [customerId],
  },
  "referral.completed": {
    referralId: "0193a5b3-5a10-7f3e-8a1d-2c4b6d8e0f12",
    customerId,
    side: "referred",
    referrerId: "0193a5b2-9d40-7b63-8e77-5a4f3c2b1d0e",
    referredId: customerId,
    points: 500,
    capped: false,
  },
  "segment.entered": {
    segmentId: "0193a5b3-7c20-7d1e-9a3b-4c5d6e7f8091",
    segmentName: "Gold, no purchase in 90 days",
    customerId,
    email: "ana@example.com",
  },
  "segment.left": {
    segmentId: "0193a5b3-7c20-7d1e-9a3b-4c5d6e7f8091",
    segmentName: "Gold, no purchase in 90 days",
    customerId,
    email: "ana@example.com",
  },
  "points.pending": {
    customerId,
    pendingId: "0193a5b3-8d30-7e2f-8b4c-5d6e7f809102",
    points: 250,
    orderId: "order-1042",
    maturesAt: "2026-12-10T09:30:00.000Z",
  },
  "points.matured": {
    customerId,
    pendingId: "0193a5b3-8d30-7e2f-8b4c-5d6e7f809102",
    points: 250,
    orderId: "order-1042",
    transactionId: "0193a5b2-bf60-7d85-9a99-7c6b5e4f3a21",
    confirmed: false,
  },
  "points.expiring": { customerId, points: 400, expiresAt: "2027-01-31T23:00:00.000Z" },
};

const signatureHeaders = [
  {
    name: SIGNATURE_HEADER,
    in: "header",
    required: true,
    description:
      "`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\" keyed with the endpoint's secret>`. The key is the whole secret as shown, `whsec_` prefix included, as UTF-8 bytes. Recompute it over the raw body, compare in constant time, and refuse a `t` more than 5 minutes from your clock (the typed client's `verifyWebhook` does all of this). After a secret rotation, while the old secret stays valid (the overlap chosen in the dashboard, 24 h by default), the header carries a second `v1=` made with the old secret: accept the delivery when any `v1` matches a secret you hold.",
    schema: { type: "string", pattern: "^t=\\d+(,v1=[0-9a-f]{64}){1,2}$" },
    example: "t=1795361493,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
  },
  {
    name: DELIVERY_HEADER,
    in: "header",
    required: true,
    description: "The delivery's id: the same on every retry of this delivery.",
    schema: { type: "string" },
    example: "0193a5b3-48f0-761e-83cc-05f4e13c2dba",
  },
];

const RECEIVER_RESPONSES = {
  "2XX": {
    description: "Received. Any other answer, or none within 10 s, is retried with exponential backoff for 24 h.",
  },
};

function webhook(summary: string, description: string, schemaId: string, examples: Examples) {
  return {
    post: {
      summary,
      description,
      operationId: `on${schemaId}`,
      tags: ["Webhooks"],
      parameters: signatureHeaders,
      requestBody: {
        required: true,
        content: { "application/json": { schema: { $ref: `#/components/schemas/${schemaId}` }, examples } },
      },
      responses: RECEIVER_RESPONSES,
    },
  };
}

export function webhooks(): Record<string, unknown> {
  const events = Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      webhook(
        `The \`${type}\` event`,
        `Posted to every active webhook of the program that subscribes to \`${type}\` (or to every event) after the change committed (at least once: drop duplicates by \`id\`). Deliveries are unordered: they are sent in parallel and retried, so a later change may arrive first; order a customer's events by \`sequence\`.`,
        eventSchemaId(type),
        {
          default: {
            summary: type,
            value: { id: EVENT_ID, type, programId, livemode: true, createdAt: at, sequence: 48213, data: DATA[type] },
          },
        },
      ),
    ]),
  );
  return {
    ...events,
    [TEST_EVENT_TYPE]: webhook(
      `The \`${TEST_EVENT_TYPE}\` event`,
      "Posted to one webhook when a manager presses Send test event in the dashboard, whatever its subscriptions: check your endpoint receives and verifies a delivery.",
      eventSchemaId(TEST_EVENT_TYPE),
      {
        default: {
          summary: TEST_EVENT_TYPE,
          value: {
            id: EVENT_ID,
            type: TEST_EVENT_TYPE,
            programId,
            livemode: true,
            createdAt: at,
            sequence: 48214,
            data: {
              webhookId: "0193a5b3-5a10-7b2f-9c3d-1e2f3a4b5c6d",
              message: "A test event sent from the dashboard.",
            },
          },
        },
      },
    ),
    pushNotification: webhook(
      "A push notification",
      "Posted to the program's push endpoint for each `queued` notification (Send a push notification), signed with the push secret.",
      "PushNotification",
      {
        default: {
          summary: "A balance update",
          value: {
            id: "0193a5b3-26d0-74fc-81aa-e3d2cf1a0b98",
            type: "notification",
            programId,
            livemode: true,
            customerId,
            loyaltyCustomerId: "LC-7K2M9Q",
            title: "You earned 250 points",
            body: "Thanks for your order #1042. Your balance is now 1,250 points.",
            category: "balance",
            data: { orderId: "1042" },
            createdAt: at,
          },
        },
      },
    ),
  };
}
