import "server-only";
import { programNow } from "@/lib/domain/clock";
import { simulateCampaign } from "@/lib/domain/campaigns/simulate";
import { staffOperation } from "../authz";
import type { SimulationForm } from "../forms/simulation";

const DAY_MS = 86_400_000;

/**
 * "Simulate on the last 30 days" (managers and owners: the campaign's authors): the campaign's draft replayed over
 * the last `days` days up to the program clock's now (lib/domain/campaigns/simulate.ts). Not audited: it reads and
 * aggregates, stores nothing and sends nothing; the sample names at most 20 customers, whom these roles may read.
 */
export const simulateCampaignAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, campaignId: string, input: SimulationForm) => {
    const now = programNow(staff.programId);
    // The window ends just after now, so that what happened at now is in it.
    const to = new Date(now.getTime() + 1);
    return simulateCampaign(tx, {
      programId: staff.programId,
      campaignId,
      from: new Date(to.getTime() - input.days * DAY_MS),
      to,
      now,
    });
  },
);
