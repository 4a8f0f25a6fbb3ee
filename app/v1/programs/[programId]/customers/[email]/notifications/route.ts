import { customerWrite } from "@/lib/api/route-factories";
import { NotificationRequest } from "@/lib/api/schemas/notifications";
import { sendNotification } from "@/lib/domain/notifications";

/** Send a push notification: 202, `queued` for delivery or `suppressed` by the customer's preferences. */
export const POST = customerWrite({
  body: NotificationRequest,
  run: async (req, tx) => {
    const notification = await sendNotification(tx, {
      programId: req.programId,
      customerId: req.customerId,
      ...req.body,
    });
    return { status: 202, json: { notification } };
  },
});
