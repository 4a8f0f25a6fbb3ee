import Link from "next/link";
import { db } from "@/lib/db/client";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { couponPools } from "@/lib/staff/queries/catalogue";
import { dashboardPages } from "@/lib/staff/urls";
import { ActiveBadge, Card, Table, formatNumber, type Column } from "@/components/ui";
import { CouponImport } from "@/components/dashboard/coupons/coupon-import";
import { CouponPoolForm } from "@/components/dashboard/coupons/coupon-pool-form";
import { PoolCodesExport } from "@/components/dashboard/exports/page-exports";
import { CouponPoolActions } from "@/components/dashboard/coupons/coupon-pool-actions";

const columns = (canManage: boolean): Column[] => [
  { label: "Name" },
  { label: "Valid for", align: "right" },
  { label: "Codes", align: "right" },
  { label: "Free", align: "right" },
  { label: "Assigned", align: "right" },
  { label: "Status" },
  ...(canManage ? [{ label: "Actions", hidden: true }] : []),
];

/** The coupon pools: a read view for every role (each pool links to its codes); managers edit, import and add. */
export default async function CouponPoolsPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const pools = await couponPools(await db(), programId);
  const canManage = can(staff.role, "program.manage");
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Coupon pools</h1>
      <Card title="Pools of codes">
        <Table
          label="Coupon pools"
          columns={columns(canManage)}
          rows={pools}
          empty={`No coupon pools yet.${canManage ? " Create one below, then import its codes from a CSV file." : ""}`}
        >
          {(p) => (
            <tr key={p.id} data-testid={`pool-${p.id}`}>
              <td className="px-4 py-2 font-medium">
                <Link
                  className="text-indigo-700 underline-offset-2 hover:underline"
                  href={dashboardPages.couponPool(programId, p.id)}
                >
                  {p.name}
                  <span className="sr-only"> codes</span>
                </Link>
              </td>
              <td className="whitespace-nowrap px-4 py-2 text-right tabular-nums">
                {p.validDays === null ? "no expiry" : `${formatNumber(p.validDays)} days`}
              </td>
              <td className="px-4 py-2 text-right tabular-nums">{formatNumber(p.total)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatNumber(p.free)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatNumber(p.assigned)}</td>
              <td className="px-4 py-2">
                <ActiveBadge active={p.active} />
              </td>
              {canManage && (
                <td className="px-4 py-2">
                  <CouponPoolActions
                    programId={programId}
                    pool={{ id: p.id, name: p.name, validDays: p.validDays, active: p.active, updatedAt: p.updatedAt }}
                  />
                </td>
              )}
            </tr>
          )}
        </Table>
        <p className="mt-3 text-xs text-slate-600">
          A deactivated pool assigns no codes (409 coupon_pool_inactive); codes it already gave stay valid.
        </p>
      </Card>
      <PoolCodesExport staff={staff} pools={pools.map((p) => ({ id: p.id, name: p.name }))} />
      {canManage && pools.length > 0 && (
        <CouponImport programId={programId} pools={pools.map((p) => ({ id: p.id, name: p.name }))} />
      )}
      {canManage && <CouponPoolForm programId={programId} />}
    </div>
  );
}
