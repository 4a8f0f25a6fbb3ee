import clsx from "clsx";
import type { ReportTotals } from "@/lib/staff/queries/reports";
import { formatNumber } from "@/components/ui";

/** A figure of the period with its change against the previous period of the same length. */
export function Figure({
  label,
  current,
  previous,
  hint,
  percent = false,
}: {
  label: string;
  current: number | null;
  previous: number | null;
  hint?: string;
  /** A rate shown as a percentage; its change is in percentage points. */
  percent?: boolean;
}) {
  const show = (n: number | null) => (n === null ? "—" : percent ? `${(100 * n).toFixed(1)} %` : formatNumber(n));
  let change = "no previous figure";
  let direction: "up" | "down" | "same" = "same";
  if (current !== null && previous !== null) {
    const diff = current - previous;
    direction = diff > 0 ? "up" : diff < 0 ? "down" : "same";
    const sign = diff > 0 ? "+" : diff < 0 ? "−" : "±";
    if (percent) change = `${sign}${Math.abs(100 * diff).toFixed(1)} pts`;
    else if (previous === 0) change = `${sign}${formatNumber(Math.abs(diff))}`;
    else change = `${sign}${formatNumber(Math.abs(diff))} (${sign}${Math.abs((100 * diff) / previous).toFixed(1)} %)`;
  }
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <p className="text-xs font-medium uppercase tracking-wide text-slate-600">{label}</p>
      <p className="mt-1 text-2xl font-semibold tabular-nums text-slate-900">{show(current)}</p>
      <p className="mt-1 text-xs tabular-nums text-slate-700">
        <span
          aria-hidden="true"
          className={clsx(direction === "up" && "text-emerald-700", direction === "down" && "text-red-700")}
        >
          {direction === "up" ? "▲ " : direction === "down" ? "▼ " : ""}
        </span>
        {change} <span className="text-slate-600">vs previous ({show(previous)})</span>
      </p>
      {hint && <p className="mt-1 text-xs text-slate-600">{hint}</p>}
    </div>
  );
}

/** The period's figures, each compared with the previous period. */
export function ReportStats({
  current,
  previous,
  expiringNext30Days,
  awaitingExpiry,
}: {
  current: ReportTotals;
  previous: ReportTotals;
  expiringNext30Days: number;
  awaitingExpiry: number;
}) {
  return (
    <div
      className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4"
      aria-label="Figures of the period"
      role="group"
    >
      <Figure label="Members" current={current.members} previous={previous.members} hint="at the end of the period" />
      <Figure label="New members" current={current.newMembers} previous={previous.newMembers} />
      <Figure
        label="Active members"
        current={current.activeMembers}
        previous={previous.activeMembers}
        hint="customers with a ledger entry other than an expiry in the period, each counted once"
      />
      <Figure label="Points issued" current={current.issued} previous={previous.issued} />
      <Figure label="Points redeemed" current={current.redeemed} previous={previous.redeemed} />
      <Figure label="Points expired" current={current.expired} previous={previous.expired} />
      <Figure
        label="Outstanding points"
        current={current.liability}
        previous={previous.liability}
        hint={`liability: balances at the end of the period${
          awaitingExpiry ? `, of which ${formatNumber(awaitingExpiry)} awaiting expiry` : ""
        }`}
      />
      <Figure
        label="Redemption rate"
        current={current.redemptionRate}
        previous={previous.redemptionRate}
        percent
        hint="points redeemed ÷ points issued"
      />
      <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-600">Expiring in the next 30 days</p>
        <p className="mt-1 text-2xl font-semibold tabular-nums text-slate-900">{formatNumber(expiringNext30Days)}</p>
        <p className="mt-1 text-xs text-slate-600">points, from today</p>
      </div>
    </div>
  );
}
