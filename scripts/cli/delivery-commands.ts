import { z } from "zod";
import { db } from "@/lib/db/client";
import { createWebhook, resendDelivery, setPushEndpoint } from "@/lib/domain/webhooks";
import { runOutbox } from "@/lib/jobs/outbox";
import { Uuid, type Command } from "./command";

/** CLI commands for the outbox: webhooks, the push endpoint, a delivery pass, a resend. */
export const deliveryCommands: Record<string, Command> = {
  "webhook create": {
    usage: "--program ID --url U",
    flags: z.strictObject({ program: Uuid, url: z.url() }),
    run: async (f: { program: string; url: string }) => createWebhook(await db(), { programId: f.program, url: f.url }),
  },
  "push-endpoint set": {
    usage: "--program ID --url U|off",
    flags: z.strictObject({ program: Uuid, url: z.union([z.literal("off"), z.url()]) }),
    run: async (f: { program: string; url: string }) =>
      setPushEndpoint(await db(), { programId: f.program, url: f.url === "off" ? null : f.url }),
  },
  "outbox run": {
    usage: "(one pass of the webhook and push delivery worker)",
    flags: z.strictObject({}),
    run: async () => runOutbox(await db()),
  },
  "delivery resend": {
    usage: "--program ID --id DELIVERY_ID   (queue a webhook or push delivery again, for an attempt now)",
    flags: z.strictObject({ program: Uuid, id: Uuid }),
    run: async (f: { program: string; id: string }) => resendDelivery(await db(), f.program, f.id),
  },
};
