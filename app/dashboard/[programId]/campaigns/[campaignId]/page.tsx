import Link from "next/link";
import { notFound } from "next/navigation";
import { db } from "@/lib/db/client";
import {
  isLifecycle,
  triggerLabel,
  type CampaignBody,
  type CampaignDefinition,
} from "@/lib/domain/campaigns/definition";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { campaignPage } from "@/lib/staff/queries/campaigns";
import { dashboardPages } from "@/lib/staff/urls";
import { Card, Stat, Table, formatDate, formatNumber } from "@/components/ui";
import { DefinitionList } from "@/components/dashboard/edit-drawer";
import { CampaignActions } from "@/components/dashboard/campaigns/campaign-actions";
import { CampaignEdit } from "@/components/dashboard/campaigns/campaign-edit";
import { CampaignChart } from "@/components/dashboard/campaigns/campaign-chart";
import { CampaignStatusBadge } from "@/components/dashboard/campaigns/campaign-status";
import {
  describeCondition,
  describeEffects,
  describeLimits,
  describeSchedule,
} from "@/components/dashboard/campaigns/describe";
import { TryIt } from "@/components/dashboard/campaigns/try-it";
import { describePendingOverride } from "@/lib/domain/pending-rules";
import { SimulationPanel } from "@/components/dashboard/campaigns/simulation-panel";

export const metadata = { title: "Campaign · Loyalty" };

function DefinitionView({ d }: { d: CampaignDefinition }) {
  return (
    <>
      <DefinitionList
        items={[
          [
            "Trigger",
            <span key="t" className="font-mono">
              {triggerLabel(d.trigger)}
            </span>,
          ],
          [
            "Conditions",
            <span key="c" className="font-mono text-xs">
              {describeCondition(d.conditions)}
            </span>,
          ],
          ["Effects", describeEffects(d)],
          ["Limits", describeLimits(d)],
          ["Schedule", describeSchedule(d)],
          ["New points", describePendingOverride(d)],
          ["Priority", `${d.priority} (${d.stacking === "exclusive" ? "exclusive" : "stacks"})`],
        ]}
      />
      <details className="mt-3 text-sm">
        <summary className="cursor-pointer font-medium text-indigo-700">JSON</summary>
        <pre className="mt-2 max-h-80 overflow-auto rounded-md bg-slate-50 p-3 text-xs">
          {JSON.stringify(d, null, 2)}
        </pre>
      </details>
    </>
  );
}

/**
 * A campaign: status and actions (managers), figures and a chart from the event log, the pending draft and every
 * version, and "try it" (a dry run for a customer). Data is loaded here (lib/staff/queries/campaigns.ts).
 */
export default async function CampaignPage({ params }: { params: Promise<{ programId: string; campaignId: string }> }) {
  const { programId, campaignId } = await params;
  const staff = await requirePage(programId, "program.read");
  const data = await campaignPage(await db(), programId, campaignId, staff.programClockAt ?? new Date());
  if (!data) notFound();
  const { campaign, figures, options, names } = data;
  const canManage = can(staff.role, "program.manage");
  const canTry = can(staff.role, "customers.read");
  const versions = [...(campaign.versions ?? [])].reverse();
  const running = versions.find((v) => v.version === campaign.version);
  const budget = (campaign.draft ?? running?.definition)?.limits.budgetPoints;
  const shown = (campaign.draft ?? running?.definition)!.trigger;
  // A lifecycle campaign has no event to try: its moments come with time (a test program's clock shows them).
  const trigger = isLifecycle(shown) ? null : shown.event;
  const attributes = options.eventTypes.find((t) => t.type === trigger)?.attributes ?? {};
  const editable: CampaignBody | undefined =
    campaign.draft ?? (running ? { name: campaign.name, ...running.definition } : undefined);
  return (
    <div className="space-y-4">
      <div>
        <Link href={dashboardPages.campaigns(programId)} className="text-sm text-indigo-700 hover:underline">
          ← Campaigns
        </Link>
        <div className="mt-1 flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-bold">{campaign.name}</h1>
          <CampaignStatusBadge status={campaign.status} />
          <span className="text-sm text-slate-700">
            {campaign.version === null ? "not activated yet" : `runs version ${campaign.version}`}
            {campaign.draft && campaign.version !== null ? " · a change is pending" : ""}
          </span>
        </div>
      </div>
      <div className="grid gap-3 sm:grid-cols-3">
        <Stat label="Events matched" value={formatNumber(figures.eventsMatched)} hint="Events it applied to" />
        <Stat label="Points issued" value={formatNumber(figures.pointsIssued)} hint="Before reversals" />
        <Stat
          label="Budget used"
          value={`${formatNumber(campaign.budgetUsed)}${budget !== undefined ? ` / ${formatNumber(budget)}` : ""}`}
          hint={budget !== undefined ? "Points, net of reversals" : "No budget: points, net of reversals"}
        />
      </div>
      <Card title="Status">
        {canManage ? (
          <CampaignActions
            programId={programId}
            campaignId={campaign.id}
            status={campaign.status}
            hasDraft={campaign.draft !== null}
            nextVersion={(campaign.version ?? 0) + 1}
          />
        ) : (
          <p className="text-sm text-slate-700">
            <CampaignStatusBadge status={campaign.status} /> Managers and owners activate, pause, resume and end
            campaigns.
          </p>
        )}
        <p className="mt-2 text-xs text-slate-600">
          Every change is in the audit log. Activating freezes the draft as the next version; the running version keeps
          running until then.
        </p>
      </Card>
      <CampaignChart days={figures.days} file={`campaign-${campaign.id.slice(0, 8)}`} />
      {figures.skipped.length > 0 && (
        <Card title="Skipped events">
          <ul className="text-sm">
            {figures.skipped.map((s) => (
              <li key={s.reason}>
                <span className="font-mono">{s.reason}</span>: {formatNumber(s.count)}
              </li>
            ))}
          </ul>
        </Card>
      )}
      <div className="grid gap-4 xl:grid-cols-2">
        {canTry && trigger !== null && (
          <TryIt
            programId={programId}
            campaignId={campaign.id}
            trigger={trigger}
            attributes={attributes}
            names={names}
          />
        )}
        {/* A draft replayed over the last 30 days of events (managers and owners, as the staff route checks). */}
        {canManage && campaign.draft && trigger !== null && (
          <SimulationPanel programId={programId} campaignId={campaign.id} />
        )}
      </div>
      {campaign.draft && (
        <Card
          title={campaign.version === null ? "Draft" : `Pending change (becomes version ${campaign.version + 1})`}
          actions={
            canManage && campaign.status !== "ended" ? (
              <CampaignEdit
                programId={programId}
                campaignId={campaign.id}
                options={options}
                initial={campaign.draft}
                title={`Edit the draft of "${campaign.name}"`}
                button="Edit draft"
              />
            ) : undefined
          }
        >
          <DefinitionView d={campaign.draft} />
        </Card>
      )}
      {!campaign.draft && canManage && editable && campaign.status !== "ended" && (
        <Card title="Change it">
          <div className="flex flex-wrap items-center gap-3 text-sm text-slate-700">
            <p>A change is kept as a draft; activating it makes version {(campaign.version ?? 0) + 1}.</p>
            <CampaignEdit
              programId={programId}
              campaignId={campaign.id}
              options={options}
              initial={editable}
              title={`Change "${campaign.name}"`}
              button="Write a change"
            />
          </div>
        </Card>
      )}
      <Card title="Versions">
        <Table
          label="Versions"
          columns={[{ label: "Version" }, { label: "Name" }, { label: "Activated" }, { label: "Definition" }]}
          rows={versions}
          empty={<>No version yet: activate the draft to run it as version 1.</>}
        >
          {(v) => (
            <tr key={v.version} data-testid={`version-${v.version}`}>
              <td className="whitespace-nowrap px-4 py-2 align-top tabular-nums">
                v{v.version}
                {v.version === campaign.version && <span className="ml-1 text-xs text-emerald-800">(runs)</span>}
              </td>
              <td className="px-4 py-2 align-top">{v.name}</td>
              <td className="whitespace-nowrap px-4 py-2 align-top">{formatDate(v.activatedAt)}</td>
              <td className="px-4 py-2">
                <DefinitionView d={v.definition} />
              </td>
            </tr>
          )}
        </Table>
      </Card>
    </div>
  );
}
