import type { CampaignStatus } from "@/lib/domain/campaigns/definition";
import { Badge, type Tone } from "@/components/ui";

const TONES: Record<CampaignStatus, Tone> = { draft: "indigo", active: "green", paused: "amber", ended: "slate" };

/** A campaign's status as a badge: draft, active, paused or ended. */
export function CampaignStatusBadge({ status }: { status: CampaignStatus }) {
  return <Badge tone={TONES[status]}>{status}</Badge>;
}
