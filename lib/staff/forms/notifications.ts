import "@/lib/zod-browser";
import { z } from "zod";
import { NotificationRequest } from "@/lib/api/schemas/notifications";

/** Sending a notification to a customer: the API's body. */
export const NotificationForm = NotificationRequest;
export type NotificationForm = z.infer<typeof NotificationForm>;
