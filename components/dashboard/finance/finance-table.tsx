import type { AccountingDay, PointsAccounting } from "@/lib/domain/accounting";
import { Card, Table, formatNumber } from "@/components/ui";

const COLUMNS = [
  ["openingOutstanding", "Opening"],
  ["earned", "Earned"],
  ["pendingCreated", "Pending created"],
  ["pendingMatured", "Pending matured"],
  ["pendingCancelled", "Pending cancelled"],
  ["reversed", "Reversed"],
  ["redeemed", "Redeemed"],
  ["redemptionsCancelled", "Redemptions cancelled"],
  ["expired", "Expired"],
  ["adjusted", "Adjusted"],
  ["closingOutstanding", "Closing"],
] as const;

type Row = Omit<AccountingDay, "day"> & { day: string };

/**
 * Every day of the period (newest first) under the period's totals, in points with money beneath when the program
 * has a value per point. closing = opening + earned − reversed − redeemed + redemptions cancelled − expired + adjusted.
 */
export function FinanceTable({ report, actions }: { report: PointsAccounting; actions?: React.ReactNode }) {
  const rows: Row[] = [{ ...report.totals, day: "Period" }, ...[...report.days].reverse()];
  return (
    <Card title="Points accounting per day" actions={actions}>
      <p className="mb-3 text-xs text-slate-600">
        Closing = opening + earned − reversed − redeemed + redemptions cancelled − expired + adjusted, every day.
        Pending points are not spendable and not outstanding until they mature.
      </p>
      <div className="max-h-[32rem] overflow-y-auto" tabIndex={0} role="region" aria-label="Points accounting: days">
        <Table
          label="Points accounting per day"
          columns={[
            { label: "Day" },
            ...COLUMNS.map(([, label]) => ({ label, align: "right" as const })),
            { label: "Breakage", align: "right" },
          ]}
          rows={rows}
          pad="px-2 py-1.5"
        >
          {(row, i) => (
            <tr key={row.day} className={i === 0 ? "bg-slate-50 font-semibold" : undefined}>
              <th scope="row" className="whitespace-nowrap px-2 py-1.5 text-left font-medium">
                {row.day}
              </th>
              {COLUMNS.map(([key]) => (
                <td key={key} className="whitespace-nowrap px-2 py-1.5 text-right tabular-nums">
                  {formatNumber(row[key])}
                  {row.money && <span className="block text-xs font-normal text-slate-600">{row.money[key]}</span>}
                </td>
              ))}
              <td className="whitespace-nowrap px-2 py-1.5 text-right tabular-nums">
                {row.breakage === null ? "—" : `${(100 * row.breakage).toFixed(1)} %`}
              </td>
            </tr>
          )}
        </Table>
      </div>
    </Card>
  );
}
