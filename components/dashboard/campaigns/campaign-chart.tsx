"use client";

import { Bar, CartesianGrid, ComposedChart, Legend, Line, Tooltip, XAxis, YAxis } from "recharts";
import type { CampaignDay } from "@/lib/staff/queries/campaigns";
import { CHART_GRID, compactNumber, dayTick, tooltipNumber } from "../reports/chart-look";
import { ChartCard } from "../reports/report-charts";

/** A campaign's last 30 days (the Reports page's chart card): points issued per day as bars, events matched as a line. */
export function CampaignChart({ days, file }: { days: CampaignDay[]; file: string }) {
  const from = days[0]?.day ?? "";
  const to = days.at(-1)?.day ?? "";
  return (
    <ChartCard
      title="Points issued and events matched per day (last 30 days)"
      description={`Chart of the campaign's points issued and events matched per day, from ${from} to ${to}`}
      height="h-64"
      file={`${file}-${from}-${to}`}
      rows={days}
      columns={[
        { key: "day", label: "Day", value: (d) => d.day },
        { key: "events", label: "Events matched", value: (d) => d.events },
        { key: "points", label: "Points issued", value: (d) => d.points },
      ]}
    >
      <ComposedChart data={days} margin={{ left: 8, right: 16, top: 8 }}>
        <CartesianGrid strokeDasharray="3 3" stroke={CHART_GRID} />
        <XAxis dataKey="day" tickFormatter={dayTick} fontSize={12} minTickGap={16} />
        <YAxis yAxisId="points" fontSize={12} tickFormatter={compactNumber} allowDecimals={false} />
        <YAxis yAxisId="events" orientation="right" fontSize={12} tickFormatter={compactNumber} allowDecimals={false} />
        <Tooltip formatter={tooltipNumber} />
        <Legend />
        <Bar yAxisId="points" dataKey="points" name="Points issued" fill="#4338ca" isAnimationActive={false} />
        <Line
          yAxisId="events"
          type="monotone"
          dataKey="events"
          name="Events matched"
          stroke="#0f766e"
          strokeWidth={2}
          dot={false}
          isAnimationActive={false}
        />
      </ComposedChart>
    </ChartCard>
  );
}
