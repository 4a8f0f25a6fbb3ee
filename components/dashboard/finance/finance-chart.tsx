"use client";

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { AccountingDay } from "@/lib/domain/accounting";
import { formatNumber } from "@/components/ui";
import { ChartCard, type Series } from "../reports/report-charts";

const GRID = "#e2e8f0";
const short = (day: string) => day.slice(5);
const compact = (n: number) => new Intl.NumberFormat("en-US", { notation: "compact" }).format(n);
const tooltipNumber = (value: unknown) => formatNumber(Number(value));
const DAY: Series<AccountingDay> = { key: "day", label: "Day", value: (d) => d.day };

/** The liability over time and the day's flows, each chart with its data as a table and a CSV file. */
export function FinanceCharts({ from, to, days }: { from: string; to: string; days: AccountingDay[] }) {
  const period = `from ${from} to ${to}`;
  const flows = [
    ["earned", "Earned", "#4338ca"],
    ["redeemed", "Redeemed", "#b45309"],
    ["expired", "Expired", "#be123c"],
    ["reversed", "Reversed", "#64748b"],
  ] as const;
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      <ChartCard
        title="Outstanding points at the end of each day"
        description={`Line chart of the points outstanding at the end of each day, ${period}`}
        height="h-64"
        file={`outstanding-${from}-${to}`}
        rows={days}
        columns={[
          DAY,
          { key: "closingOutstanding", label: "Outstanding", value: (d) => d.closingOutstanding },
          { key: "closingOutstandingMoney", label: "Money", value: (d) => d.money?.closingOutstanding ?? null },
        ]}
      >
        <LineChart data={days} margin={{ left: 8, right: 16, top: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
          <XAxis dataKey="day" tickFormatter={short} fontSize={12} minTickGap={16} />
          <YAxis fontSize={12} tickFormatter={compact} domain={["auto", "auto"]} />
          <Tooltip formatter={tooltipNumber} />
          <Line
            type="monotone"
            dataKey="closingOutstanding"
            name="Outstanding points"
            stroke="#0f766e"
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
        </LineChart>
      </ChartCard>
      <ChartCard
        title="Points in and out per day"
        description={`Bar chart of points earned, redeemed, expired and reversed per day, ${period}`}
        height="h-64"
        file={`points-flows-${from}-${to}`}
        rows={days}
        columns={[DAY, ...flows.map(([key, label]) => ({ key, label, value: (d: AccountingDay) => d[key] }))]}
      >
        <BarChart data={days} margin={{ left: 8, right: 16, top: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
          <XAxis dataKey="day" tickFormatter={short} fontSize={12} minTickGap={16} />
          <YAxis fontSize={12} tickFormatter={compact} />
          <Tooltip formatter={tooltipNumber} />
          <Legend />
          {flows.map(([key, name, color]) => (
            <Bar key={key} dataKey={key} name={name} fill={color} isAnimationActive={false} />
          ))}
        </BarChart>
      </ChartCard>
    </div>
  );
}
