import "server-only";
import { campaignBodyOf } from "@/lib/api/schemas/campaigns";
import { programNow } from "@/lib/domain/clock";
import { recordCustomerEvent } from "@/lib/domain/campaigns/customer-events";
import { triggerType, type CampaignBody, type EventAttributes } from "@/lib/domain/campaigns/definition";
import {
  activateCampaign,
  createCampaign,
  getCampaign,
  moveCampaign,
  putEventType,
  updateCampaignDraft,
  type CampaignView,
} from "@/lib/domain/campaigns/store";
import { resolveCustomerId } from "@/lib/domain/customer-lookup";
import { audited } from "../audit";
import { staffOperation } from "../authz";
import type { CampaignForm, CampaignMove, EventTypeForm, TryEventForm } from "../forms/campaigns";

/**
 * The staff side of campaigns (managers and owners write; API.md "Campaigns and events"): event types, a campaign's
 * draft, its status moves, each through the domain function /v1 calls and audited in the same transaction; and the
 * "try it" dry run, which stores nothing and so is not audited.
 */

const staffActor = (staffId: string) => `staff:${staffId}`;

/** What the audit log keeps of a campaign: its status, version and pending draft (the definition is small). */
const shown = (c: CampaignView) => ({ name: c.name, status: c.status, version: c.version, draft: c.draft });

export const putEventTypeAsStaff = staffOperation("program.manage", async (tx, staff, input: EventTypeForm) => {
  const now = programNow(staff.programId);
  const before = await tx.eventType.findUnique({
    where: { programId_type: { programId: staff.programId, type: input.type } },
    select: { attributes: true },
  });
  const { eventType, created } = await putEventType(tx, {
    programId: staff.programId,
    type: input.type,
    attributes: input.attributes as EventAttributes,
    now,
  });
  await audited(
    tx,
    staff,
    created ? "event_type.create" : "event_type.update",
    { type: "event_type", id: input.type },
    before ? { attributes: before.attributes } : null,
    { attributes: eventType.attributes },
  );
  return { eventType, created };
});

const body = (input: CampaignForm): CampaignBody => campaignBodyOf(input);

export const createCampaignAsStaff = staffOperation("program.manage", async (tx, staff, input: CampaignForm) => {
  const campaign = await createCampaign(tx, {
    programId: staff.programId,
    body: body(input),
    now: programNow(staff.programId),
  });
  await audited(tx, staff, "campaign.create", { type: "campaign", id: campaign.id }, null, shown(campaign));
  return campaign;
});

/** Replaces the draft: a new campaign's definition, or the change that its next activation makes version N+1. */
export const updateCampaignDraftAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, campaignId: string, input: CampaignForm) => {
    const before = await getCampaign(tx, staff.programId, campaignId);
    const after = await updateCampaignDraft(tx, {
      programId: staff.programId,
      campaignId,
      body: body(input),
      now: programNow(staff.programId),
    });
    await audited(tx, staff, "campaign.update", { type: "campaign", id: campaignId }, shown(before), shown(after));
    return after;
  },
);

/** Activate (freeze the draft as the next version), pause, resume or end: audited as `campaign.<move>`. */
export const moveCampaignAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, campaignId: string, input: CampaignMove) => {
    const before = await getCampaign(tx, staff.programId, campaignId);
    const now = programNow(staff.programId);
    const after =
      input.move === "activate"
        ? await activateCampaign(tx, { programId: staff.programId, campaignId, now })
        : await moveCampaign(tx, { programId: staff.programId, campaignId, move: input.move, now });
    await audited(
      tx,
      staff,
      `campaign.${input.move}`,
      { type: "campaign", id: campaignId },
      { status: before.status, version: before.version },
      { status: after.status, version: after.version },
    );
    return after;
  },
);

/**
 * "Try it": a dry run of an event of the campaign's trigger for a customer, with the campaign's pending draft (if
 * any) evaluated in place of its running version, and every other active campaign as it runs. Stores nothing.
 */
export const tryCampaignAsStaff = staffOperation(
  "customers.read",
  async (tx, staff, campaignId: string, input: TryEventForm) => {
    const campaign = await getCampaign(tx, staff.programId, campaignId);
    const customerId = await resolveCustomerId(tx, staff.programId, input.email);
    const running = campaign.versions?.at(-1);
    const definition = campaign.draft ?? running?.definition;
    if (!definition) throw new Error("a campaign without a draft or a version");
    const now = programNow(staff.programId);
    const outcome = await recordCustomerEvent(tx, {
      programId: staff.programId,
      customerId,
      type: triggerType(definition.trigger),
      occurredAt: input.occurredAt ? new Date(input.occurredAt) : null,
      attributes: input.attributes,
      actor: staffActor(staff.staffId),
      dryRun: true,
      now,
      ...(campaign.draft && campaign.status !== "ended"
        ? {
            preview: {
              campaignId: campaign.id,
              name: campaign.draft.name,
              version: (campaign.version ?? 0) + 1,
              definition: campaign.draft,
              budgetUsed: campaign.budgetUsed,
            },
          }
        : {}),
    });
    return { ...outcome, previewedDraft: !!campaign.draft && campaign.status !== "ended" };
  },
);
