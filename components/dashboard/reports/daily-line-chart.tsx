"use client";

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { CHART_GRID, compactNumber, dayTick, tooltipNumber } from "./chart-look";

/** One line of a daily chart: the row's field it draws, its name in the legend and tooltip, its colour. */
export interface DailyLine<T> {
  key: keyof T & string;
  name: string;
  color: string;
}

/**
 * The one line chart of figures per day (the Overview's, Finance's and a simulation's): the days along the x axis,
 * compact numbers on the y axis, exact ones in the tooltip, one unanimated line per series, and a legend when there
 * is more than one. `level`: the y axis fits the data (a level such as the outstanding points) instead of starting
 * at 0. Sized by its container (`ChartCard`, or a `ResponsiveContainer`).
 */
export function DailyLineChart<T extends { day: string }>({
  data,
  lines,
  level = false,
}: {
  data: T[];
  lines: readonly DailyLine<T>[];
  level?: boolean;
}) {
  return (
    <LineChart data={data} margin={{ left: 8, right: 16, top: 8 }}>
      <CartesianGrid strokeDasharray="3 3" stroke={CHART_GRID} />
      <XAxis dataKey="day" tickFormatter={dayTick} fontSize={12} minTickGap={16} />
      <YAxis fontSize={12} tickFormatter={compactNumber} {...(level ? { domain: ["auto", "auto"] } : {})} />
      <Tooltip formatter={tooltipNumber} />
      {lines.length > 1 && <Legend />}
      {lines.map(({ key, name, color }) => (
        <Line
          key={key}
          type="monotone"
          dataKey={key}
          name={name}
          stroke={color}
          strokeWidth={2}
          dot={false}
          isAnimationActive={false}
        />
      ))}
    </LineChart>
  );
}
