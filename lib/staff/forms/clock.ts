import { z } from "zod";
import { AdvanceRequest } from "@/lib/api/schemas/clock";

/**
 * Moving a test program's clock from the dashboard: the API's `to` (lib/api/schemas/clock.ts), and for the advance
 * itself the submit's id, so a double submit (a second click, a retried request) replays the first advance.
 */

export const ClockPreviewQuery = AdvanceRequest.pick({ to: true });
export type ClockPreviewQuery = z.infer<typeof ClockPreviewQuery>;

export const ClockAdvanceForm = AdvanceRequest.pick({ to: true }).extend({
  requestId: z.uuid().describe("This submit's id: a repeat of it answers the advance it made."),
});
export type ClockAdvanceForm = z.infer<typeof ClockAdvanceForm>;
