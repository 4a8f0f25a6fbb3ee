import type { Applied } from "@/lib/staff/queries/clock";
import { formatNumber } from "@/components/ui";

/** What an advance did (or a dry run would do), as labelled figures: the report's `applied` counts. */
export function AppliedCounts({ applied, label }: { applied: Applied; label: string }) {
  const figures: [string, number][] = [
    ["Points expired", applied.expiredPoints],
    ["Lots expired", applied.expiredLots],
    ["Tier changes", applied.tierChanges],
    ["Pending activated", applied.pendingActivated],
    ["Lifecycle fired", applied.lifecycleFired],
    ["Webhook events", applied.webhooks],
  ];
  return (
    <dl aria-label={label} className="grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-6">
      {figures.map(([name, value]) => (
        <div key={name} className="rounded-md border border-slate-200 bg-white px-3 py-2">
          <dt className="text-xs font-medium text-slate-600">{name}</dt>
          <dd className="text-lg font-semibold tabular-nums text-slate-900">{formatNumber(value)}</dd>
        </div>
      ))}
    </dl>
  );
}
