"use client";

import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { Card } from "@/components/ui";

interface Props {
  days: { day: string; issued: number; redeemed: number; members: number }[];
  tiers: { name: string; customers: number }[];
}

const short = (day: string) => day.slice(5);
const GRID = "#e2e8f0";

/** A chart in a card, described for screen readers (role="img" with the chart in words). */
function ChartCard({
  title,
  description,
  height,
  className,
  children,
}: {
  title: string;
  description: string;
  height: string;
  className?: string;
  children: React.ReactElement;
}) {
  return (
    <Card title={title} className={className}>
      <div className={height} role="img" aria-label={description}>
        <ResponsiveContainer width="100%" height="100%">
          {children}
        </ResponsiveContainer>
      </div>
    </Card>
  );
}

export function OverviewCharts({ days, tiers }: Props) {
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      <ChartCard
        title="Points issued vs redeemed per day (30 days)"
        description="Line chart of points issued and redeemed per day over the last 30 days"
        height="h-72"
        className="xl:col-span-2"
      >
        <LineChart data={days} margin={{ left: 8, right: 16, top: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
          <XAxis dataKey="day" tickFormatter={short} fontSize={12} />
          <YAxis fontSize={12} />
          <Tooltip />
          <Legend />
          <Line
            type="monotone"
            dataKey="issued"
            name="Issued"
            stroke="#4338ca"
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
          <Line
            type="monotone"
            dataKey="redeemed"
            name="Redeemed"
            stroke="#b45309"
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
        </LineChart>
      </ChartCard>
      <ChartCard
        title="New members per day (30 days)"
        description="Bar chart of new members per day over the last 30 days"
        height="h-64"
      >
        <BarChart data={days} margin={{ left: 8, right: 16, top: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
          <XAxis dataKey="day" tickFormatter={short} fontSize={12} />
          <YAxis fontSize={12} allowDecimals={false} />
          <Tooltip />
          <Bar dataKey="members" name="New members" fill="#0f766e" isAnimationActive={false} />
        </BarChart>
      </ChartCard>
      <ChartCard title="Tier distribution" description="Bar chart of customers per tier" height="h-64">
        <BarChart data={tiers} layout="vertical" margin={{ left: 24, right: 16, top: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
          <XAxis type="number" fontSize={12} allowDecimals={false} />
          <YAxis type="category" dataKey="name" fontSize={12} width={80} />
          <Tooltip />
          <Bar dataKey="customers" name="Customers" fill="#4338ca" isAnimationActive={false} />
        </BarChart>
      </ChartCard>
    </div>
  );
}
