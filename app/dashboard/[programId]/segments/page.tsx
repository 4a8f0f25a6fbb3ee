import Link from "next/link";
import { db } from "@/lib/db/client";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { segmentBuilderOptions, segmentRows } from "@/lib/staff/queries/segments";
import { dashboardPages } from "@/lib/staff/urls";
import { Card, Table, formatDate, formatNumber, type Column } from "@/components/ui";
import { SegmentBuilder } from "@/components/dashboard/segments/segment-builder";

export const metadata = { title: "Segments · Loyalty" };

const COLUMNS: Column[] = [
  { label: "Segment" },
  { label: "Members", align: "right" },
  { label: "Webhooks" },
  { label: "Updated" },
];

/** The program's segments (every role reads) and the builder (managers and owners). */
export default async function SegmentsPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const database = await db();
  const canManage = can(staff.role, "program.manage");
  const [segments, options] = await Promise.all([
    segmentRows(database, programId),
    canManage ? segmentBuilderOptions(database, programId) : null,
  ]);
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Segments</h1>
      <Card title="Segments">
        <p className="mb-3 text-xs text-slate-600">
          Members as of each segment&apos;s last recompute; a segment&apos;s page counts who is in it now.
        </p>
        <Table
          label="Segments"
          columns={COLUMNS}
          rows={segments}
          empty={<>No segments yet: a segment names a group of customers that campaigns and exports can use.</>}
        >
          {(s) => (
            <tr key={s.id} data-testid={`segment-${s.id}`}>
              <td className="px-4 py-2">
                <Link
                  href={dashboardPages.segment(programId, s.id)}
                  className="font-medium text-indigo-700 hover:underline"
                >
                  {s.name}
                </Link>
              </td>
              <td className="px-4 py-2 text-right tabular-nums">{formatNumber(s.members)}</td>
              <td className="px-4 py-2">{s.emitEvents ? "entered / left" : "—"}</td>
              <td className="whitespace-nowrap px-4 py-2">{formatDate(s.updatedAt)}</td>
            </tr>
          )}
        </Table>
      </Card>
      {options && (
        <Card title="New segment">
          <SegmentBuilder programId={programId} options={options} />
        </Card>
      )}
    </div>
  );
}
