import { db } from "@/lib/db/client";
import { can, requirePage } from "@/lib/staff/authz";
import { couponPools } from "@/lib/staff/queries/catalogue";
import { Card, Table, formatNumber } from "@/components/ui";
import { CouponImport } from "@/components/dashboard/coupons/coupon-import";
import { CouponPoolForm } from "@/components/dashboard/coupons/coupon-pool-form";
import { PoolCodesExport } from "@/components/dashboard/exports/page-exports";

const COLUMNS = [
  { label: "Name" },
  { label: "Valid for", align: "right" },
  { label: "Codes", align: "right" },
  { label: "Free", align: "right" },
  { label: "Assigned", align: "right" },
] as const;

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
          columns={COLUMNS}
          rows={pools}
          empty={`No coupon pools yet.${canManage ? " Create one below, then import its codes from a CSV file." : ""}`}
        >
          {(p) => (
            <tr key={p.id} data-testid={`pool-${p.id}`}>
              <td className="px-4 py-2 font-medium">{p.name}</td>
              <td className="whitespace-nowrap px-4 py-2 text-right tabular-nums">
                {p.validDays === null ? "no expiry" : `${formatNumber(p.validDays)} days`}
              </td>
              <td className="px-4 py-2 text-right tabular-nums">{formatNumber(p.total)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatNumber(p.free)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatNumber(p.assigned)}</td>
            </tr>
          )}
        </Table>
      </Card>
      <PoolCodesExport staff={staff} pools={pools.map((p) => ({ id: p.id, name: p.name }))} />
      {canManage && pools.length > 0 && (
        <CouponImport programId={programId} pools={pools.map((p) => ({ id: p.id, name: p.name }))} />
      )}
      {canManage && <CouponPoolForm programId={programId} />}
    </div>
  );
}
