import Link from "next/link";
import { db } from "@/lib/db/client";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { campaignBuilderOptions, campaignRows } from "@/lib/staff/queries/campaigns";
import { dashboardPages } from "@/lib/staff/urls";
import { Card, Table, formatNumber, type Column } from "@/components/ui";
import { CampaignBuilder } from "@/components/dashboard/campaigns/campaign-builder";
import { CampaignStatusBadge } from "@/components/dashboard/campaigns/campaign-status";
import { EventTypesCard } from "@/components/dashboard/campaigns/event-types-card";

export const metadata = { title: "Campaigns · Loyalty" };

const COLUMNS: Column[] = [
  { label: "Campaign" },
  { label: "Status" },
  { label: "Version", align: "right" },
  { label: "Trigger" },
  { label: "Priority", align: "right" },
  { label: "Budget used", align: "right" },
];

/** The program's campaigns, the builder (managers) and the event types campaigns are triggered by. */
export default async function CampaignsPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const database = await db();
  const [campaigns, options] = await Promise.all([
    campaignRows(database, programId),
    campaignBuilderOptions(database, programId),
  ]);
  const canManage = can(staff.role, "program.manage");
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Campaigns</h1>
      <Card title="Campaigns">
        <Table
          label="Campaigns"
          columns={COLUMNS}
          rows={campaigns}
          empty={<>No campaigns yet: an event gives only what earning flows and API calls give.</>}
        >
          {(c) => (
            <tr key={c.id} data-testid={`campaign-${c.id}`}>
              <td className="px-4 py-2">
                <Link
                  href={dashboardPages.campaign(programId, c.id)}
                  className="font-medium text-indigo-700 hover:underline"
                >
                  {c.name}
                </Link>
                <p className="text-xs text-slate-600">{c.stacking === "exclusive" ? "exclusive" : "stacks"}</p>
              </td>
              <td className="whitespace-nowrap px-4 py-2">
                <CampaignStatusBadge status={c.status} />
                {c.pendingDraft && <span className="ml-2 text-xs text-amber-800">change pending</span>}
              </td>
              <td className="px-4 py-2 text-right tabular-nums">{c.version ?? "—"}</td>
              <td className="px-4 py-2 font-mono text-xs">{c.trigger}</td>
              <td className="px-4 py-2 text-right tabular-nums">{c.priority}</td>
              <td className="whitespace-nowrap px-4 py-2 text-right tabular-nums">
                {formatNumber(c.budgetUsed)}
                {c.budgetPoints !== null && <span className="text-slate-600"> / {formatNumber(c.budgetPoints)}</span>}
              </td>
            </tr>
          )}
        </Table>
      </Card>
      {canManage && (
        <Card title="New campaign">
          {options.eventTypes.length === 0 && (
            <p className="mb-3 text-sm text-slate-700">
              No event type yet: declare one below for campaigns triggered by events, or trigger one by a moment in the
              customer&apos;s life.
            </p>
          )}
          <CampaignBuilder programId={programId} options={options} />
        </Card>
      )}
      <EventTypesCard programId={programId} eventTypes={options.eventTypes} canManage={canManage} />
    </div>
  );
}
