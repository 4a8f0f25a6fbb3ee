import Link from "next/link";
import { notFound } from "next/navigation";
import { db } from "@/lib/db/client";
import { programNow } from "@/lib/domain/clock";
import { decodeCursor } from "@/lib/domain/cursor";
import { isUuid } from "@/lib/ids";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { firstParams } from "@/lib/staff/search-params";
import { segmentPage } from "@/lib/staff/queries/segments";
import { dashboardPages } from "@/lib/staff/urls";
import { Card, KeysetPager, Stat, Table, formatDate, formatNumber, type Column } from "@/components/ui";
import { CampaignStatusBadge } from "@/components/dashboard/campaigns/campaign-status";
import { describeCondition } from "@/components/dashboard/campaigns/describe";
import { PageExport } from "@/components/dashboard/exports/page-exports";
import { SegmentBuilder } from "@/components/dashboard/segments/segment-builder";
import { SegmentDelete } from "@/components/dashboard/segments/segment-delete";

export const metadata = { title: "Segment · Loyalty" };

const MEMBER_COLUMNS: Column[] = [{ label: "Customer" }];

/**
 * One segment: who is in it now (the live count, a keyset page of members, the CSV export), the campaigns whose
 * conditions name it, and its definition — the builder for managers and owners, in words for the others.
 */
export default async function SegmentPage({
  params,
  searchParams,
}: {
  params: Promise<{ programId: string; segmentId: string }>;
  searchParams: Promise<{ after?: string | string[] }>;
}) {
  const { programId, segmentId } = await params;
  const staff = await requirePage(programId, "customers.read");
  if (!isUuid(segmentId)) notFound();
  const { after } = await firstParams(searchParams);
  // A cursor that is not one of this list starts from the first page.
  const cursor = after && decodeCursor(after) ? after : null;
  const page = await segmentPage(await db(), programId, segmentId, cursor, programNow(programId));
  if (!page) notFound();
  const { segment, members, campaigns, options } = page;
  const canManage = can(staff.role, "program.manage");
  return (
    <div className="space-y-4">
      <p className="text-sm">
        <Link href={dashboardPages.segments(programId)} className="text-indigo-700 hover:underline">
          ← Segments
        </Link>
      </p>
      <h1 className="text-2xl font-bold break-words">{segment.name}</h1>
      <div className="grid gap-4 sm:grid-cols-3">
        <Stat label="Members now" value={formatNumber(page.count)} />
        <Stat label="Last recompute" value={formatDate(segment.recomputedAt)} hint="Program clock" />
        <Stat label="Webhooks" value={segment.emitEvents ? "entered / left" : "off"} />
      </div>
      {canManage ? (
        <Card
          title="Edit the segment"
          actions={<SegmentDelete programId={programId} segmentId={segment.id} version={page.version} />}
        >
          <SegmentBuilder
            programId={programId}
            options={options}
            initial={{
              id: segment.id,
              name: segment.name,
              filter: segment.filter,
              emitEvents: segment.emitEvents,
              version: page.version,
            }}
          />
        </Card>
      ) : (
        <Card title="Who is in it">
          <p className="font-mono text-sm break-words">{describeCondition(segment.filter)}</p>
        </Card>
      )}
      <div className="grid gap-4 lg:grid-cols-3">
        <Card
          title="Members"
          className="min-w-0 lg:col-span-2"
          actions={<PageExport staff={staff} kind="segment-members" filter={{ segment: segment.id }} />}
        >
          <Table
            label="Members"
            columns={MEMBER_COLUMNS}
            rows={members.data}
            empty={<>Nobody is in this segment now.</>}
          >
            {(m) => (
              <tr key={m.customerId}>
                <td className="px-4 py-2 break-all">
                  <Link
                    href={dashboardPages.customer(programId, m.customerId)}
                    className="text-indigo-700 hover:underline"
                  >
                    {m.email}
                  </Link>
                </td>
              </tr>
            )}
          </Table>
          <KeysetPager
            className="mt-3 flex justify-between"
            filters={{}}
            after={cursor ?? undefined}
            next={members.nextCursor}
            firstLabel="← First page"
            nextLabel="Next page →"
          />
        </Card>
        <Card title="Campaigns using it" className="min-w-0">
          {campaigns.length === 0 ? (
            <p className="text-sm text-slate-600">
              No campaign names this segment. A campaign&apos;s condition <code>customer.segment</code> is one of it
              targets its members.
            </p>
          ) : (
            <ul className="space-y-2 text-sm">
              {campaigns.map((c) => (
                <li key={c.id} className="flex flex-wrap items-center gap-2">
                  <Link
                    href={dashboardPages.campaign(programId, c.id)}
                    className="font-medium text-indigo-700 hover:underline"
                  >
                    {c.name}
                  </Link>
                  <CampaignStatusBadge status={c.status} />
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </div>
  );
}
