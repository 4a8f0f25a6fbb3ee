"use client";

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import type { ClockMonth } from "@/lib/staff/queries/clock";
import { formatNumber } from "@/components/ui";
import { CHART_GRID, compactNumber, tooltipNumber } from "../reports/chart-look";
import { ChartCard, type Series } from "../reports/report-charts";

/** What a test program's clock did per month of clock time: points expired, and tier moves up and down. */

const MONTH: Series<ClockMonth> = { key: "month", label: "Month (UTC)", value: (m) => m.month };

export function ClockCharts({ months }: { months: ClockMonth[] }) {
  const span = `from ${months[0]?.month} to ${months.at(-1)?.month} of clock time`;
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      <ChartCard
        title="Points expired per month"
        description={`Bar chart of points expired per month, ${span}: ${months
          .filter((m) => m.expiredPoints > 0)
          .map((m) => `${m.month} ${formatNumber(m.expiredPoints)}`)
          .join(", ")}`}
        height="h-64"
        file="clock-points-expired"
        rows={months}
        columns={[MONTH, { key: "expiredPoints", label: "Points expired", value: (m) => m.expiredPoints }]}
      >
        <BarChart data={months} margin={{ left: 8, right: 16, top: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_GRID} />
          <XAxis dataKey="month" fontSize={12} minTickGap={12} />
          <YAxis fontSize={12} tickFormatter={compactNumber} allowDecimals={false} />
          <Tooltip formatter={tooltipNumber} />
          <Bar dataKey="expiredPoints" name="Points expired" fill="#be123c" maxBarSize={56} isAnimationActive={false} />
        </BarChart>
      </ChartCard>
      <ChartCard
        title="Tier changes per month"
        description={`Bar chart of tier changes up and down per month, ${span}: ${months
          .filter((m) => m.tierUp + m.tierDown > 0)
          .map((m) => `${m.month} ${m.tierUp} up, ${m.tierDown} down`)
          .join("; ")}`}
        height="h-64"
        file="clock-tier-changes"
        rows={months}
        columns={[
          MONTH,
          { key: "tierUp", label: "Up", value: (m) => m.tierUp },
          { key: "tierDown", label: "Down", value: (m) => m.tierDown },
        ]}
      >
        <BarChart data={months} margin={{ left: 8, right: 16, top: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_GRID} />
          <XAxis dataKey="month" fontSize={12} minTickGap={12} />
          <YAxis fontSize={12} allowDecimals={false} tickFormatter={compactNumber} />
          <Tooltip formatter={tooltipNumber} />
          <Legend />
          <Bar dataKey="tierUp" name="Up" stackId="t" fill="#4338ca" maxBarSize={56} isAnimationActive={false} />
          <Bar dataKey="tierDown" name="Down" stackId="t" fill="#b45309" maxBarSize={56} isAnimationActive={false} />
        </BarChart>
      </ChartCard>
    </div>
  );
}
