"use client";

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Card } from "@/components/ui";

interface Props {
  days: { day: string; issued: number; redeemed: number; members: number }[];
  tiers: { name: string; customers: number }[];
}

const short = (day: string) => day.slice(5);

export function OverviewCharts({ days, tiers }: Props) {
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      <Card title="Points issued vs redeemed per day (30 days)" className="xl:col-span-2">
        <div className="h-72" role="img" aria-label="Line chart of points issued and redeemed per day over the last 30 days">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={days} margin={{ left: 8, right: 16, top: 8 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
              <XAxis dataKey="day" tickFormatter={short} fontSize={12} />
              <YAxis fontSize={12} />
              <Tooltip />
              <Legend />
              <Line type="monotone" dataKey="issued" name="Issued" stroke="#4338ca" strokeWidth={2} dot={false} isAnimationActive={false} />
              <Line type="monotone" dataKey="redeemed" name="Redeemed" stroke="#b45309" strokeWidth={2} dot={false} isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </div>
      </Card>
      <Card title="New members per day (30 days)">
        <div className="h-64" role="img" aria-label="Bar chart of new members per day over the last 30 days">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={days} margin={{ left: 8, right: 16, top: 8 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
              <XAxis dataKey="day" tickFormatter={short} fontSize={12} />
              <YAxis fontSize={12} allowDecimals={false} />
              <Tooltip />
              <Bar dataKey="members" name="New members" fill="#0f766e" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </Card>
      <Card title="Tier distribution">
        <div className="h-64" role="img" aria-label="Bar chart of customers per tier">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={tiers} layout="vertical" margin={{ left: 24, right: 16, top: 8 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
              <XAxis type="number" fontSize={12} allowDecimals={false} />
              <YAxis type="category" dataKey="name" fontSize={12} width={80} />
              <Tooltip />
              <Bar dataKey="customers" name="Customers" fill="#4338ca" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </Card>
    </div>
  );
}
