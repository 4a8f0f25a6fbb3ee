import { db } from "@/lib/db/client";
import { can, requirePage } from "@/lib/staff/authz";
import { couponPools } from "@/lib/staff/queries/catalogue";
import { Card, Empty, formatNumber, TableScroll } from "@/components/ui";
import { CouponImport, CouponPoolForm } from "@/components/dashboard/catalogue-forms";

export default async function CouponPoolsPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const pools = await couponPools(await db(), programId);
  const canManage = can(staff.role, "program.manage");
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Coupon pools</h1>
      <Card title="Pools of codes">
        {pools.length === 0 ? (
          <Empty>No coupon pools yet.{canManage ? " Create one below, then import its codes from a CSV file." : ""}</Empty>
        ) : (
          <TableScroll>
            <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Coupon pools">
              <thead className="whitespace-nowrap bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-700">
                <tr>
                  <th scope="col" className="px-4 py-2">Name</th>
                  <th scope="col" className="px-4 py-2 text-right">Valid for</th>
                  <th scope="col" className="px-4 py-2 text-right">Codes</th>
                  <th scope="col" className="px-4 py-2 text-right">Free</th>
                  <th scope="col" className="px-4 py-2 text-right">Assigned</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {pools.map((p) => (
                  <tr key={p.id} data-testid={`pool-${p.id}`}>
                    <td className="px-4 py-2 font-medium">{p.name}</td>
                    <td className="whitespace-nowrap px-4 py-2 text-right tabular-nums">{p.validDays === null ? "no expiry" : `${formatNumber(p.validDays)} days`}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{formatNumber(p.total)}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{formatNumber(p.free)}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{formatNumber(p.assigned)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Card>
      {canManage && pools.length > 0 && <CouponImport programId={programId} pools={pools.map((p) => ({ id: p.id, name: p.name }))} />}
      {canManage && <CouponPoolForm programId={programId} />}
    </div>
  );
}
