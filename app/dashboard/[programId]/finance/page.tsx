import { openReportPage, type ProgramSearchPageProps } from "@/lib/staff/program-page";
import { can } from "@/lib/staff/authz";
import { financeReport } from "@/lib/staff/queries/finance";
import { dashboardPages } from "@/lib/staff/urls";
import { Card } from "@/components/ui";
import { DefinitionList } from "@/components/dashboard/edit-drawer";
import { RangePicker } from "@/components/dashboard/reports/range-picker";
import { ExportButton } from "@/components/dashboard/exports/export-button";
import { FinanceSummary } from "@/components/dashboard/finance/finance-summary";
import { FinanceCharts } from "@/components/dashboard/finance/finance-chart";
import { FinanceTable } from "@/components/dashboard/finance/finance-table";
import { PointValueDrawer } from "@/components/dashboard/finance/point-value-form";

export const metadata = { title: "Finance · Loyalty" };

/** Points accounting (lib/domain/accounting.ts): the program's points as books, per day of its time zone. */
export default async function FinancePage(props: ProgramSearchPageProps<"range" | "from" | "to">) {
  const { programId, staff, database, timeZone, range } = await openReportPage(props, "program.read");
  const report = await financeReport(database, programId, range);
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-bold">Finance</h1>
      <RangePicker programId={programId} range={range} page={dashboardPages.finance} />
      <p className="text-sm text-slate-700">
        <strong>
          {range.from} – {range.to}
        </strong>{" "}
        ({range.days} days, {timeZone}).{" "}
        {report.rolledUpThrough
          ? `Days up to ${report.rolledUpThrough} read from the daily totals, later days from the ledger.`
          : "Computed from the ledger (the daily totals are being built)."}
      </p>
      <Card
        title="Value of a point"
        actions={
          can(staff.role, "program.manage") && (
            <PointValueDrawer programId={programId} currency={report.currency} pointValue={report.pointValue} />
          )
        }
      >
        <DefinitionList
          items={[
            ["Currency", report.currency ?? "not set"],
            ["Value of one point", report.pointValue ?? "not set: amounts in points only"],
          ]}
        />
      </Card>
      <FinanceSummary totals={report.totals} currency={report.currency} />
      <FinanceCharts from={range.from} to={range.to} days={report.days} />
      <FinanceTable
        report={report}
        actions={
          <ExportButton
            programId={programId}
            kind="points-accounting"
            filter={{ from: range.from, to: range.to }}
            label="Export CSV"
          />
        }
      />
    </div>
  );
}
