import { db } from "@/lib/db/client";
import { requirePage } from "@/lib/staff/authz";
import { cachedOverview } from "@/lib/staff/queries/overview";
import { Stat, formatDate, formatNumber } from "@/components/ui";
import { OverviewCharts } from "@/components/dashboard/overview-charts";

export const metadata = { title: "Overview · Loyalty" };

export default async function OverviewPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const data = await cachedOverview(await db(), programId);
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-bold">{staff.programName}</h1>
        <p className="text-xs text-slate-600">Figures as of {formatDate(data.computedAt)}, refreshed every minute.</p>
      </div>
      <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
        <Stat label="Members" value={formatNumber(data.members)} />
        <Stat label="New members" value={formatNumber(data.newMembers30)} hint="last 30 days" />
        <Stat label="Points issued" value={formatNumber(data.issued30)} hint="last 30 days" />
        <Stat label="Points redeemed" value={formatNumber(data.redeemed30)} hint="last 30 days" />
      </div>
      <OverviewCharts days={data.days} tiers={data.tiers} />
    </div>
  );
}
