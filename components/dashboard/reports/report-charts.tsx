"use client";

import { Bar, BarChart, CartesianGrid, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { toCsvInBrowser, saveTextFile } from "@/lib/exports/csv-browser";
import type { ReportDay, ReportTier } from "@/lib/staff/queries/reports";
import { Card, Table, formatNumber, secondaryButtonClass } from "@/components/ui";
import { CHART_GRID, compactNumber, dayTick, tooltipNumber } from "./chart-look";
import { DailyLineChart } from "./daily-line-chart";

interface Props {
  from: string;
  to: string;
  days: ReportDay[];
  tiers: ReportTier[];
}

/** A column of a chart's data: its CSV header, its table header and how a row gives its value. */
export interface Series<T> {
  key: string;
  label: string;
  value: (row: T) => string | number | null;
}

/**
 * A chart in a card, described for screen readers (role="img" with the chart in words), with its data as a
 * table (a disclosure, for anyone who wants the exact numbers) and as a CSV file. Also the clock page's.
 */
export function ChartCard<T>({
  title,
  description,
  height,
  className,
  file,
  rows,
  columns,
  children,
}: {
  title: string;
  description: string;
  height: string;
  className?: string;
  /** The CSV file's name, without .csv. */
  file: string;
  rows: T[];
  columns: Series<T>[];
  children: React.ReactElement;
}) {
  const download = () =>
    saveTextFile(
      `${file}.csv`,
      toCsvInBrowser([columns.map((c) => c.key), ...rows.map((r) => columns.map((c) => c.value(r)))]),
    );
  return (
    <Card
      title={title}
      className={className}
      actions={
        <button type="button" className={secondaryButtonClass} onClick={download} aria-label={`Download CSV: ${title}`}>
          Download CSV
        </button>
      }
    >
      <div className={height} role="img" aria-label={description}>
        <ResponsiveContainer width="100%" height="100%">
          {children}
        </ResponsiveContainer>
      </div>
      <details className="mt-3 text-sm">
        <summary className="cursor-pointer font-medium text-indigo-700">Show the data as a table</summary>
        {/* Keyboard-scrollable: a focusable region with a name. */}
        <div className="mt-2 max-h-80 overflow-y-auto" tabIndex={0} role="region" aria-label={`${title}: data`}>
          <Table
            label={title}
            columns={columns.map((c, i) => ({ label: c.label, align: i ? "right" : undefined }))}
            rows={rows}
            look="plain"
          >
            {(row, i) => (
              <tr key={i}>
                {columns.map((c, j) => {
                  const v = c.value(row);
                  return (
                    <td key={c.key} className={j ? "py-1 pr-4 text-right tabular-nums" : "py-1 pr-4"}>
                      {typeof v === "number" ? formatNumber(v) : v}
                    </td>
                  );
                })}
              </tr>
            )}
          </Table>
        </div>
      </details>
    </Card>
  );
}

const DAY_COLUMN: Series<ReportDay> = { key: "day", label: "Day", value: (d) => d.day };

export function ReportCharts({ from, to, days, tiers }: Props) {
  const period = `from ${from} to ${to}`;
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      <ChartCard
        title="Points issued, redeemed and expired per day"
        description={`Line chart of points issued and redeemed per day, and points expired, ${period}`}
        height="h-72"
        className="xl:col-span-2"
        file={`points-per-day-${from}-${to}`}
        rows={days}
        columns={[
          DAY_COLUMN,
          { key: "issued", label: "Issued", value: (d) => d.issued },
          { key: "redeemed", label: "Redeemed", value: (d) => d.redeemed },
          { key: "expired", label: "Expired", value: (d) => d.expired },
        ]}
      >
        <DailyLineChart
          data={days}
          lines={[
            { key: "issued", name: "Issued", color: "#4338ca" },
            { key: "redeemed", name: "Redeemed", color: "#b45309" },
            { key: "expired", name: "Expired", color: "#be123c" },
          ]}
        />
      </ChartCard>
      <ChartCard
        title="Outstanding points (liability) at the end of each day"
        description={`Line chart of outstanding points at the end of each day, ${period}`}
        height="h-64"
        file={`outstanding-points-${from}-${to}`}
        rows={days}
        columns={[DAY_COLUMN, { key: "outstanding", label: "Outstanding points", value: (d) => d.liability }]}
      >
        <DailyLineChart
          data={days}
          lines={[{ key: "liability", name: "Outstanding points", color: "#0f766e" }]}
          level
        />
      </ChartCard>
      <ChartCard
        title="New members per day"
        description={`Bar chart of new members per day, ${period}`}
        height="h-64"
        file={`new-members-${from}-${to}`}
        rows={days}
        columns={[DAY_COLUMN, { key: "newMembers", label: "New members", value: (d) => d.newMembers }]}
      >
        <BarChart data={days} margin={{ left: 8, right: 16, top: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_GRID} />
          <XAxis dataKey="day" tickFormatter={dayTick} fontSize={12} minTickGap={16} />
          <YAxis fontSize={12} allowDecimals={false} tickFormatter={compactNumber} />
          <Tooltip formatter={tooltipNumber} />
          <Bar dataKey="newMembers" name="New members" fill="#0f766e" isAnimationActive={false} />
        </BarChart>
      </ChartCard>
      <ChartCard
        title="Tier distribution (today)"
        description={`Bar chart of customers per tier: ${tiers.map((t) => `${t.name} ${formatNumber(t.customers)}`).join(", ")}`}
        height="h-64"
        className="xl:col-span-2"
        file="tier-distribution"
        rows={tiers}
        columns={[
          { key: "tier", label: "Tier", value: (t) => t.name },
          { key: "requiredPoints", label: "Required points", value: (t) => t.requiredPoints },
          { key: "customers", label: "Customers", value: (t) => t.customers },
        ]}
      >
        <BarChart data={tiers} layout="vertical" margin={{ left: 24, right: 56, top: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_GRID} />
          <XAxis type="number" fontSize={12} allowDecimals={false} tickFormatter={compactNumber} />
          <YAxis type="category" dataKey="name" fontSize={12} width={80} />
          <Tooltip formatter={tooltipNumber} />
          <Bar dataKey="customers" name="Customers" fill="#4338ca" isAnimationActive={false}>
            <LabelList dataKey="customers" position="right" fontSize={12} fill="#0f172a" formatter={tooltipNumber} />
          </Bar>
        </BarChart>
      </ChartCard>
    </div>
  );
}
