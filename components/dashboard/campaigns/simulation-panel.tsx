"use client";

import { useState } from "react";
import { ResponsiveContainer } from "recharts";
import type { SimulationReport } from "@/lib/domain/campaigns/simulate";
import { staffFetch, StaffApiError } from "@/lib/staff/client";
import { staffApi } from "@/lib/staff/urls";
import { Card, Stat, Table, buttonClass, formatNumber } from "@/components/ui";
import { DailyLineChart } from "../reports/daily-line-chart";

const DAYS = 30;
const signed = (n: number) => (n > 0 ? `+${formatNumber(n)}` : formatNumber(n));
const reasons = (skipped: Partial<Record<string, number>>) =>
  Object.entries(skipped)
    .map(([reason, n]) => `${reason.replaceAll("_", " ")} ×${n}`)
    .join(", ");

/**
 * "Simulate on the last 30 days" for a campaign's draft (API.md "Simulations"): asks the staff route, then shows the
 * difference, points per day of both replays as a chart (the Overview's `DailyLineChart`), the customers
 * whose real redemptions the draft would not have covered, and the sample with why. Props only.
 */
export function SimulationPanel({ programId, campaignId }: { programId: string; campaignId: string }) {
  const [report, setReport] = useState<SimulationReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const run = async () => {
    setPending(true);
    setError(null);
    try {
      setReport(
        await staffFetch<SimulationReport>("POST", staffApi.campaignSimulation(programId, campaignId), { days: DAYS }),
      );
    } catch (e) {
      setError(e instanceof StaffApiError ? e.message : "The simulation failed.");
    } finally {
      setPending(false);
    }
  };
  return (
    <Card
      title="Simulation"
      actions={
        <button type="button" className={buttonClass} onClick={run} disabled={pending}>
          {pending ? "Simulating…" : `Simulate on the last ${DAYS} days`}
        </button>
      }
    >
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {!report && !error && (
        <p className="text-sm text-slate-600">
          Replays the last {DAYS} days of real events with this draft, and without it. Nothing is stored or sent.
        </p>
      )}
      {report && <SimulationReportView report={report} />}
    </Card>
  );
}

function SimulationReportView({ report }: { report: SimulationReport }) {
  const { difference, baseline, candidate, shortfalls } = report;
  const period = `from ${report.from.slice(0, 10)} to ${report.to.slice(0, 10)}`;
  return (
    <div className="space-y-4" aria-live="polite">
      <p className="text-sm text-slate-600">
        {formatNumber(report.replayed.events)} events of {formatNumber(report.replayed.customers)} customers replayed,{" "}
        {period}.
      </p>
      {report.campaign.pending && (
        <p className="text-sm text-slate-700">
          The draft&apos;s points would be pending{" "}
          {report.campaign.pending.untilConfirmed
            ? "until their order is confirmed"
            : `for ${report.campaign.pending.days} days`}
          : {formatNumber(candidate.pendingAtEnd)} points still pending at the end of the window (not in the liability),
          none of them spendable before they mature.
        </p>
      )}
      <dl className="grid grid-cols-2 gap-3 md:grid-cols-4">
        <Stat
          label="Points issued"
          value={signed(difference.pointsIssued)}
          hint={`${formatNumber(baseline.pointsIssued)} → ${formatNumber(candidate.pointsIssued)}`}
        />
        <Stat label="Customers affected" value={formatNumber(difference.customersAffected)} />
        <Stat
          label="Tier moves"
          value={`${formatNumber(difference.tierMoves.up)} up · ${formatNumber(difference.tierMoves.down)} down`}
        />
        <Stat
          label="Liability"
          value={signed(difference.liability.points)}
          hint={difference.budgetExhaustedAt ? `budget used up ${difference.budgetExhaustedAt}` : undefined}
        />
      </dl>
      <div
        className="h-64"
        role="img"
        aria-label={`Line chart of campaign points per day, without and with the draft, ${period}`}
      >
        <ResponsiveContainer width="100%" height="100%">
          <DailyLineChart
            data={report.daily}
            lines={[
              { key: "baseline", name: "Without the draft", color: "#64748b" },
              { key: "candidate", name: "With the draft", color: "#4338ca" },
            ]}
          />
        </ResponsiveContainer>
      </div>
      {shortfalls.redemptions > 0 && (
        <div role="status" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          {formatNumber(shortfalls.customers)} customers could not have afforded {formatNumber(shortfalls.redemptions)}{" "}
          real redemptions with the draft:{" "}
          {shortfalls.list
            .map((s) => `${s.email ?? s.customerId} (${formatNumber(s.points)} at ${s.at.slice(0, 10)})`)
            .join(", ")}
        </div>
      )}
      <Table
        label="Sample of customers"
        look="plain"
        columns={[
          { label: "Customer" },
          { label: "Without", align: "right" },
          { label: "With", align: "right" },
          { label: "Why" },
        ]}
        rows={report.sample}
        empty={<p className="text-sm text-slate-600">No customer&apos;s points change.</p>}
      >
        {(row) => (
          <tr key={row.customerId}>
            <td className="py-1 pr-4">{row.email ?? row.customerId}</td>
            <td className="py-1 pr-4 text-right tabular-nums">{formatNumber(row.baselinePoints)}</td>
            <td className="py-1 pr-4 text-right tabular-nums">{formatNumber(row.candidatePoints)}</td>
            <td className="py-1 text-slate-600">
              {row.why
                .map(
                  (w) =>
                    `${w.name}: ${formatNumber(w.baselinePoints)} → ${formatNumber(w.candidatePoints)}` +
                    (Object.keys(w.candidateSkipped).length ? ` (skipped: ${reasons(w.candidateSkipped)})` : ""),
                )
                .join("; ")}
            </td>
          </tr>
        )}
      </Table>
    </div>
  );
}
