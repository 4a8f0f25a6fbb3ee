import { z } from "zod";
import { Id, Timestamp } from "./common";

/** A program's clock and its advance (API.md "Test programs"; lib/domain/program-clock.ts). */

export const ProgramClock = z
  .object({
    now: Timestamp.describe(
      "The program's business time: real time for a live program, the stored clock of a test one.",
    ),
    mode: z.enum(["live", "test"]),
  })
  .meta({ id: "ProgramClock" });

export const AdvanceRequest = z
  .strictObject({
    to: z.iso
      .datetime({ offset: true })
      .describe("Where the clock goes: not before its now, at most two years after it.")
      .meta({ examples: ["2027-11-25T00:00:00.000Z"] }),
    dryRun: z.boolean().optional().describe("Answer the same report and store nothing."),
  })
  .meta({ id: "AdvanceRequest" });

export const ClockTimelineEntry = z
  .object({
    at: Timestamp.describe("The instant the timer ran at (the program's now for that step)."),
    kind: z.enum(["points.matured", "points.expired", "tier.period_closed", "tier.changed", "lifecycle.fired"]),
    customer: Id.describe("The customer's id."),
    detail: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "ClockTimelineEntry" });

export const AdvanceReport = z
  .object({
    from: Timestamp,
    to: Timestamp,
    dryRun: z.boolean(),
    applied: z.object({
      expiredLots: z.number().int(),
      expiredPoints: z.number().int(),
      tierChanges: z.number().int().describe("Period closes that changed the customer's tier."),
      pendingActivated: z.number().int().describe("Pending points that matured (one per pending earn)."),
      lifecycleFired: z.number().int().describe("Always 0: there are no lifecycle campaigns yet."),
      webhooks: z.number().int().describe("Events written, each delivered to the webhooks subscribed to its type."),
    }),
    steps: z.number().int().describe("The due instants the advance stepped through."),
    timeline: z.array(ClockTimelineEntry).describe("What happened, in time order: the first `timelineLimit` entries."),
    timelineTotal: z.number().int(),
    timelineLimit: z.number().int(),
  })
  .meta({ id: "AdvanceReport" });
