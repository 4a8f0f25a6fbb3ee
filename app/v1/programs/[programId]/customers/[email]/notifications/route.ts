import { apiWrite } from "@/lib/api/handler";
import { customerOf } from "@/lib/api/customer-routes";
import { NotificationRequest } from "@/lib/api/schemas/notifications";
import { sendNotification } from "@/lib/domain/notifications";

/** Send a push notification: 202, `queued` for delivery or `suppressed` by the customer's preferences. */
export const POST = apiWrite({
  body: NotificationRequest,
  run: async (req, tx) => {
    const customerId = await customerOf(req, tx);
    const notification = await sendNotification(tx, { programId: req.programId, customerId, ...req.body });
    return { status: 202, json: { notification } };
  },
});
