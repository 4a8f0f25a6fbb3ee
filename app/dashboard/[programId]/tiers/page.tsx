import { db } from "@/lib/db/client";
import { requirePage, can } from "@/lib/staff/authz";
import { programTiers } from "@/lib/staff/queries/catalogue";
import { Card, Table, formatNumber } from "@/components/ui";
import { TierForm } from "@/components/dashboard/tiers/tier-form";

const COLUMNS = [
  { label: "Name" },
  { label: "Required points", align: "right" },
  { label: "Factor", align: "right" },
  { label: "Content" },
] as const;

export default async function TiersPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const tiers = await programTiers(await db(), programId);
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Tiers</h1>
      <Card title="Tiers by required points">
        <Table
          label="Tiers"
          look="plain"
          columns={COLUMNS}
          rows={tiers}
          empty="No tiers yet: every customer is tierless until you add one."
        >
          {(t) => (
            <tr key={t.id}>
              <td className="py-2 pr-4 font-medium">{t.name}</td>
              <td className="py-2 pr-4 text-right tabular-nums">{formatNumber(t.requiredPoints)}</td>
              <td className="py-2 pr-4 text-right tabular-nums">×{t.factor}</td>
              <td className="py-2 text-slate-600">{t.content ?? "—"}</td>
            </tr>
          )}
        </Table>
      </Card>
      {can(staff.role, "program.manage") && <TierForm programId={programId} />}
    </div>
  );
}
