import { db } from "@/lib/db/client";
import { requirePage, can } from "@/lib/staff/authz";
import { programTiers } from "@/lib/staff/queries/catalogue";
import { Card, Empty, formatNumber, TableScroll } from "@/components/ui";
import { TierForm } from "@/components/dashboard/program-forms";

export default async function TiersPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const tiers = await programTiers(await db(), programId);
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Tiers</h1>
      <Card title="Tiers by required points">
        {tiers.length === 0 ? (
          <Empty>No tiers yet: every customer is tierless until you add one.</Empty>
        ) : (
          <TableScroll>
            <table className="min-w-full text-sm">
              <thead className="text-left text-xs font-semibold uppercase tracking-wide text-slate-700">
                <tr>
                  <th scope="col" className="py-2 pr-4">Name</th>
                  <th scope="col" className="py-2 pr-4 text-right">Required points</th>
                  <th scope="col" className="py-2 pr-4 text-right">Factor</th>
                  <th scope="col" className="py-2">Content</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {tiers.map((t) => (
                  <tr key={t.id}>
                    <td className="py-2 pr-4 font-medium">{t.name}</td>
                    <td className="py-2 pr-4 text-right tabular-nums">{formatNumber(t.requiredPoints)}</td>
                    <td className="py-2 pr-4 text-right tabular-nums">×{t.factor}</td>
                    <td className="py-2 text-slate-600">{t.content ?? "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Card>
      {can(staff.role, "program.manage") && <TierForm programId={programId} />}
    </div>
  );
}
