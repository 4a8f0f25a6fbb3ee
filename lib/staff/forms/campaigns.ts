import "@/lib/zod-browser";
import { z } from "zod";
import { CampaignBody, EventTypeDeclaration, EventTypeName } from "@/lib/api/schemas/campaigns";
import { Email } from "@/lib/api/schemas/common";

/**
 * Campaigns and event types from the dashboard: the /v1 schemas themselves (a campaign body or an event type's
 * declaration accepted by one is accepted by the other), a status move, and the "try it" dry run.
 */

export const CampaignForm = CampaignBody;
export type CampaignForm = z.infer<typeof CampaignForm>;

/** The status moves a manager makes on the campaign page (API.md "Campaigns and events"). */
export const CAMPAIGN_MOVES = ["activate", "pause", "resume", "end"] as const;
export const CampaignMove = z.strictObject({ move: z.enum(CAMPAIGN_MOVES, "must be activate, pause, resume or end") });
export type CampaignMove = z.infer<typeof CampaignMove>;

/** An event type declared (or redeclared) from the settings card: its name and its attributes. */
export const EventTypeForm = EventTypeDeclaration.extend({ type: EventTypeName });
export type EventTypeForm = z.infer<typeof EventTypeForm>;

/** A dry run of an event for a customer: nothing is stored, no limit or budget is consumed. */
export const TryEventForm = z.strictObject({
  email: Email,
  occurredAt: z.iso.datetime({ offset: true, error: "must be a date and time" }).nullable().optional(),
  attributes: z
    .record(z.string(), z.unknown(), "must be a JSON object")
    .refine((a) => JSON.stringify(a).length <= 32 * 1024, "must be at most 32 KB as JSON"),
});
export type TryEventForm = z.infer<typeof TryEventForm>;
