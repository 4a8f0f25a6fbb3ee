import Link from "next/link";
import type { TimelineRow } from "@/lib/staff/queries/clock";
import { dashboardPages } from "@/lib/staff/urls";
import { Badge, ResponsiveCard, Table, formatDate, type Tone } from "@/components/ui";

/** What the clock did, one row per timer that ran: when (clock time), what, to whom, and the detail in words. */

const KINDS: Record<TimelineRow["kind"], string> = {
  "points.matured": "Points matured",
  "points.expired": "Points expired",
  "tier.changed": "Tier changed",
  "tier.period_closed": "Period closed",
  "lifecycle.fired": "Lifecycle campaign",
};

function Kind({ row }: { row: TimelineRow }) {
  const tone: Tone =
    row.kind === "points.expired"
      ? "red"
      : row.kind === "tier.changed"
        ? "indigo"
        : row.kind === "lifecycle.fired"
          ? "green"
          : "slate";
  return (
    <Badge tone={tone}>
      {KINDS[row.kind]}
      {row.direction ? (row.direction === "up" ? " ↑" : " ↓") : ""}
    </Badge>
  );
}

function Customer({ programId, row }: { programId: string; row: TimelineRow }) {
  return (
    <Link
      className="break-all text-indigo-700 hover:underline"
      href={dashboardPages.customer(programId, row.customerId)}
    >
      {row.customerEmail ?? "erased customer"}
    </Link>
  );
}

export function TimelineTable({ programId, rows, label }: { programId: string; rows: TimelineRow[]; label: string }) {
  return (
    <Table
      label={label}
      columns={[{ label: "Clock time" }, { label: "What" }, { label: "Customer" }, { label: "Detail" }]}
      rows={rows}
      empty="Nothing was due: no points expired and no tier period closed."
      card={(row, i) => (
        <ResponsiveCard
          key={i}
          title={<Customer programId={programId} row={row} />}
          fields={[
            { label: "At", value: formatDate(row.at) },
            { label: "What", value: <Kind row={row} /> },
            { label: "Detail", value: row.detail },
          ]}
        />
      )}
    >
      {(row, i) => (
        <tr key={i}>
          <td className="whitespace-nowrap px-4 py-2 tabular-nums">
            <time dateTime={row.at}>{formatDate(row.at)}</time>
          </td>
          <td className="whitespace-nowrap px-4 py-2">
            <Kind row={row} />
          </td>
          <td className="px-4 py-2">
            <Customer programId={programId} row={row} />
          </td>
          <td className="px-4 py-2 text-slate-700">{row.detail}</td>
        </tr>
      )}
    </Table>
  );
}
