"use client";

import type { CampaignStatus } from "@/lib/domain/campaigns/definition";
import { useStaffWrite } from "@/lib/staff/client";
import { CampaignMove, type CAMPAIGN_MOVES } from "@/lib/staff/forms/campaigns";
import { staffApi } from "@/lib/staff/urls";
import { FormError, buttonClass, dangerButtonClass, secondaryButtonClass } from "@/components/ui";

type Move = (typeof CAMPAIGN_MOVES)[number];

/** Which moves a campaign allows in each status (lib/domain/campaigns/store.ts); activate needs a draft. */
const MOVES_FROM: Record<CampaignStatus, Move[]> = {
  draft: ["activate", "end"],
  active: ["pause", "end"],
  paused: ["resume", "end"],
  ended: [],
};

const LABELS: Record<Move, string> = {
  activate: "Activate",
  pause: "Pause",
  resume: "Resume",
  end: "End",
};

/**
 * A campaign's status buttons (managers): activate (its draft becomes the next version), pause, resume, end (final,
 * confirmed). Each is audited as `campaign.<move>`.
 */
export function CampaignActions({
  programId,
  campaignId,
  status,
  hasDraft,
  nextVersion,
}: {
  programId: string;
  campaignId: string;
  status: CampaignStatus;
  hasDraft: boolean;
  nextVersion: number;
}) {
  const write = useStaffWrite<typeof CampaignMove, { status: string; version: number | null }>({
    schema: CampaignMove,
    method: "POST",
    url: staffApi.campaignStatus(programId, campaignId),
    success: (c) => (c.status === "active" && c.version ? `Active: version ${c.version} runs` : `Campaign ${c.status}`),
  });
  const moves = [...MOVES_FROM[status]];
  // An active or paused campaign with a pending change activates it as its next version.
  if (hasDraft && status !== "draft" && status !== "ended") moves.unshift("activate");
  if (moves.length === 0) return <p className="text-sm text-slate-600">The campaign has ended: it cannot change.</p>;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        {moves.map((move) => (
          <button
            key={move}
            type="button"
            disabled={write.pending}
            className={move === "end" ? dangerButtonClass : move === "activate" ? buttonClass : secondaryButtonClass}
            onClick={() => {
              if (move === "end" && !window.confirm("End the campaign for good? It cannot run again.")) return;
              write.submit({ move });
            }}
          >
            {move === "activate" && status !== "draft" ? `Activate version ${nextVersion}` : LABELS[move]}
          </button>
        ))}
      </div>
      <FormError error={write.errors.form ?? write.errors.move} />
    </div>
  );
}
