import { z } from "zod";
import type { NotificationInput } from "@/lib/domain/notifications";
import { NOTIFICATION_CATEGORIES, NOTIFICATION_OUTCOMES } from "@/lib/domain/vocabulary";
import { Id, Metadata } from "./common";

/** Push notifications to a customer (API.md §3). */

export const NotificationRequest = z
  .strictObject({
    title: z.string().trim().min(1).max(120),
    body: z.string().trim().min(1).max(1000),
    category: z.enum(NOTIFICATION_CATEGORIES),
    data: Metadata.nullable().optional(),
  })
  .meta({ id: "NotificationRequest" }) satisfies z.ZodType<Omit<NotificationInput, "programId" | "customerId">>;
export const NotificationResult = z
  .object({ notification: z.object({ id: Id, status: z.enum(NOTIFICATION_OUTCOMES) }) })
  .meta({ id: "NotificationResult" });
