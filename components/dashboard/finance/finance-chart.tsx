"use client";

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import type { AccountingDay } from "@/lib/domain/accounting";
import { CHART_GRID, compactNumber, dayTick, tooltipNumber } from "../reports/chart-look";
import { DailyLineChart } from "../reports/daily-line-chart";
import { ChartCard, type Series } from "../reports/report-charts";

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
        <DailyLineChart
          data={days}
          lines={[{ key: "closingOutstanding", name: "Outstanding points", color: "#0f766e" }]}
          level
        />
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
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_GRID} />
          <XAxis dataKey="day" tickFormatter={dayTick} fontSize={12} minTickGap={16} />
          <YAxis fontSize={12} tickFormatter={compactNumber} />
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
