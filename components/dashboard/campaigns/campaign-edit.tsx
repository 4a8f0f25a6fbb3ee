"use client";

import type { CampaignBody } from "@/lib/domain/campaigns/definition";
import type { CampaignBuilderOptions } from "@/lib/staff/queries/campaigns";
import { EditDrawer } from "../edit-drawer";
import { CampaignBuilder } from "./campaign-builder";

/** "Edit draft" / "Write a change" (managers): the builder in a side drawer, replacing the campaign's draft. */
export function CampaignEdit({
  programId,
  campaignId,
  options,
  initial,
  title,
  button,
}: {
  programId: string;
  campaignId: string;
  options: CampaignBuilderOptions;
  initial: CampaignBody;
  title: string;
  button: string;
}) {
  return (
    <EditDrawer title={title} button={button}>
      {(close) => (
        <CampaignBuilder
          programId={programId}
          options={options}
          initial={initial}
          campaignId={campaignId}
          onSaved={close}
        />
      )}
    </EditDrawer>
  );
}
