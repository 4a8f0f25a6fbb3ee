import { z } from "zod";
import { SKIP_REASONS } from "@/lib/domain/campaigns/definition";
import { SIMULATION_MAX_DAYS, SIMULATION_MAX_EVENTS, SIMULATION_SAMPLE } from "@/lib/domain/campaigns/simulate-limits";
import { Id, Timestamp } from "./common";

/** A campaign's draft replayed over the program's history (API.md "Simulations"; lib/domain/campaigns/simulate.ts). */

export const SimulationRequest = z
  .strictObject({
    from: z.iso
      .datetime({ offset: true })
      .describe("Start of the window (inclusive): events and entries recorded from then on are replayed.")
      .meta({ examples: ["2026-10-27T00:00:00.000Z"] }),
    to: z.iso
      .datetime({ offset: true })
      .describe(`End of the window (exclusive): after \`from\`, at most ${SIMULATION_MAX_DAYS} days after it.`)
      .meta({ examples: ["2026-11-26T00:00:00.000Z"] }),
  })
  .meta({ id: "SimulationRequest" });

const Run = z.object({
  pointsIssued: z.number().int().describe("Points every campaign gave in the window."),
  campaignPoints: z.number().int().describe("Points this campaign gave."),
  campaignApplications: z.number().int().describe("Times this campaign applied."),
  customersEarning: z.number().int().describe("Customers who got points from this campaign."),
  unaffordableRedemptions: z
    .number()
    .int()
    .describe("Real redemptions and spends this replay's balance would not have covered."),
  customersShort: z.number().int().describe("Customers with at least one of them."),
  outstanding: z.number().int().describe("The replayed customers' balances at `to`, summed (spendable points)."),
  pendingAtEnd: z
    .number()
    .int()
    .describe(
      "Campaign points this replay gave that are still pending at `to` (the same pending rule as the live write: " +
        "the campaign's override, else the program's setting); not in `outstanding`, and not spendable before they mature.",
    ),
});

const Skips = z.partialRecord(z.enum(SKIP_REASONS), z.number().int());

export const SimulationReport = z
  .object({
    campaign: z.object({
      id: Id,
      name: z.string().describe("The draft's name."),
      status: z.string(),
      version: z.number().int().nullable().describe("The version it runs now (null: never activated)."),
      draftVersion: z.number().int().describe("The version the draft would become."),
      pending: z
        .object({
          days: z.number().int().nullable().describe("They mature this many days after the earn (null: see below)."),
          untilConfirmed: z.boolean().describe("They mature only when their order is confirmed."),
        })
        .nullable()
        .describe("Whether the draft's points would go pending, and until when. Null: spendable at once."),
    }),
    from: Timestamp,
    to: Timestamp,
    limits: z.object({
      maxDays: z.number().int().describe(`${SIMULATION_MAX_DAYS}`),
      maxEvents: z.number().int().describe(`${SIMULATION_MAX_EVENTS}`),
    }),
    replayed: z.object({
      events: z.number().int(),
      entries: z.number().int().describe("Ledger entries replayed as they happened (not campaign earns)."),
      customers: z.number().int(),
      skippedEvents: z.number().int().describe("Events of customers deleted since."),
    }),
    baseline: Run.describe("With the campaign versions that ran at each event."),
    candidate: Run.describe("With this campaign's draft in place of its version."),
    difference: z.object({
      pointsIssued: z.number().int().describe("candidate − baseline"),
      customersAffected: z.number().int().describe("Customers whose campaign points differ."),
      tierMoves: z
        .object({ up: z.number().int(), down: z.number().int() })
        .describe("Customers whose tier would differ, projected on their current tier period."),
      budgetExhaustedAt: Timestamp.optional().describe("When the draft's budget ran out in the candidate replay."),
      liability: z.object({ points: z.number().int().describe("Points outstanding at `to`, candidate − baseline.") }),
    }),
    daily: z
      .array(z.object({ day: z.string(), baseline: z.number().int(), candidate: z.number().int() }))
      .describe("Campaign points issued per day of the program's time zone (days with points only)."),
    shortfalls: z
      .object({
        customers: z.number().int(),
        redemptions: z.number().int(),
        list: z.array(
          z.object({
            customerId: Id,
            email: z.string().nullable(),
            at: Timestamp,
            points: z.number().int(),
            balanceBefore: z.number().int(),
          }),
        ),
      })
      .describe(
        `Real redemptions the candidate balance would not have covered: counted, the first ${SIMULATION_SAMPLE} listed.`,
      ),
    sample: z
      .array(
        z.object({
          customerId: Id,
          email: z.string().nullable(),
          baselinePoints: z.number().int(),
          candidatePoints: z.number().int(),
          why: z.array(
            z.object({
              campaignId: Id,
              name: z.string(),
              baselinePoints: z.number().int(),
              candidatePoints: z.number().int(),
              baselineSkipped: Skips,
              candidateSkipped: Skips,
            }),
          ),
        }),
      )
      .describe(`Up to ${SIMULATION_SAMPLE} customers with the largest difference, and per campaign why.`),
  })
  .meta({ id: "SimulationReport" });
