import { openReportPage, type ProgramSearchPageProps } from "@/lib/staff/program-page";
import { can } from "@/lib/staff/authz";
import { cachedReport } from "@/lib/staff/queries/reports";
import { referralReport } from "@/lib/staff/queries/reports-referrals";
import { Card, formatDate } from "@/components/ui";
import { RangePicker } from "@/components/dashboard/reports/range-picker";
import { ReportStats } from "@/components/dashboard/reports/report-stats";
import { ReportCharts } from "@/components/dashboard/reports/report-charts";
import { ReferralStats } from "@/components/dashboard/reports/referral-stats";
import { ExportButton } from "@/components/dashboard/exports/export-button";

export const metadata = { title: "Reports · Loyalty" };

/** The program's reports: a period in the program's time zone, compared with the one before it (lib/staff/queries/reports.ts). */
export default async function ReportsPage(props: ProgramSearchPageProps<"range" | "from" | "to">) {
  const { programId, staff, database, timeZone, range } = await openReportPage(props, "program.read");
  const [report, referrals] = await Promise.all([
    cachedReport(database, programId, range, staff.programClockAt),
    referralReport(database, programId, range),
  ]);
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-bold">{staff.programName}</h1>
        <p className="text-xs text-slate-600">Figures as of {formatDate(report.computedAt)}, refreshed every minute.</p>
      </div>
      <RangePicker programId={programId} range={range} />
      <p className="text-sm text-slate-700">
        <strong>
          {range.from} – {range.to}
        </strong>{" "}
        ({range.days} days, {timeZone}) compared with {range.previous.from} – {range.previous.to}.
      </p>
      <ReportStats
        current={report.current}
        previous={report.previous}
        expiringNext30Days={report.expiringNext30Days}
        awaitingExpiry={report.awaitingExpiry}
      />
      <ReportCharts from={range.from} to={range.to} days={report.days} tiers={report.tiers} />
      <ReferralStats current={referrals.current} previous={referrals.previous} />
      {can(staff.role, "customers.export") && (
        <Card title="Exports of the period">
          <div className="flex flex-wrap gap-3">
            <ExportButton
              programId={programId}
              kind="ledger"
              filter={{ from: range.from, to: range.to }}
              label="Export the points ledger"
            />
            <ExportButton
              programId={programId}
              kind="redemptions"
              filter={{ from: range.from, to: range.to }}
              label="Export redemptions"
            />
          </div>
        </Card>
      )}
    </div>
  );
}
