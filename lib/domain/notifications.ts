import "server-only";
import type { Tx } from "@/lib/db/types";
import { emitEvent } from "./events";
import { programNow } from "./clock";

import type { NotificationCategory, NotificationOutcome } from "./vocabulary";

/** The customer's opt-out column for each category. */
const FLAG: Record<NotificationCategory, string> = {
  balance: "balanceNotifications",
  tier: "tierNotifications",
  rewardAvailable: "rewardAvailableNotifications",
  location: "locationNotifications",
  marketing: "marketingNotifications",
};

export interface NotificationInput {
  programId: string;
  customerId: string;
  title: string;
  body: string;
  category: NotificationCategory;
  data?: Record<string, unknown> | null;
}

/**
 * Stores a push notification. It is `suppressed` when the customer turned that category off, else `queued`:
 * the outbox worker then delivers it to the program's push endpoint.
 */
export async function sendNotification(
  tx: Tx,
  input: NotificationInput,
): Promise<{ id: string; status: NotificationOutcome }> {
  const [customer] = await tx.$queryRawUnsafe<{ allowed: boolean; pushEndpointUrl: string | null }[]>(
    `SELECT c."${FLAG[input.category]}" AS allowed, p."pushEndpointUrl" FROM "Customer" c JOIN "Program" p ON p.id = c."programId"
     WHERE c.id = $1::uuid`,
    input.customerId,
  );
  const status = customer?.allowed ? "queued" : "suppressed";
  const now = programNow(input.programId);
  const notification = await tx.notification.create({
    data: {
      programId: input.programId,
      customerId: input.customerId,
      title: input.title,
      body: input.body,
      category: input.category,
      data: (input.data ?? undefined) as object | undefined,
      status,
      createdAt: now,
    },
    select: { id: true },
  });
  if (status === "queued") {
    await emitEvent(
      tx,
      input.programId,
      "notification.requested",
      {
        customerId: input.customerId,
        notificationId: notification.id,
        category: input.category,
      },
      now,
    );
    if (customer?.pushEndpointUrl) {
      await tx.delivery.create({
        data: {
          programId: input.programId,
          kind: "push",
          notificationId: notification.id,
          url: customer.pushEndpointUrl,
        },
      });
    }
  }
  return { id: notification.id, status };
}
